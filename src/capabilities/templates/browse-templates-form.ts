import type { ViewOutput } from '@slack/bolt';
import { TEMPLATES } from './actions.js';
import type { InputBlock, ModalView } from '@slack/types';
import { contractIdSchema } from '../../platform/mint/schemas.js';
import { problemBanner } from '../../platform/blocks/blocks.js';
import { INPUT_ACTION_ID, textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { textValue } from '../../platform/blocks/view-state.js';

export const BROWSE_BLOCKS = { contractId: 'contract_id', conversation: 'conversation' } as const;

/** "Browse templates": a contract ID and where to post the list (Slack gives a response_url for it). */
export function browseTemplatesView(values: { contractId?: string | undefined } = {}, problem?: string): ModalView {
  const conversation: InputBlock = {
    type: 'input',
    block_id: BROWSE_BLOCKS.conversation,
    label: { type: 'plain_text', text: 'Post the list in' },
    hint: { type: 'plain_text', text: 'Everyone there sees the list and can page through it.' },
    element: {
      type: 'conversations_select',
      action_id: INPUT_ACTION_ID,
      default_to_current_conversation: true,
      response_url_enabled: true,
      filter: { include: ['public', 'private', 'im', 'mpim'], exclude_bot_users: true },
    },
  };
  return modal({
    callbackId: TEMPLATES.forms.browse.callbackId,
    title: 'Browse templates',
    submit: 'Post',
    close: 'Cancel',
    blocks: [
      ...(problem ? [problemBanner(problem)] : []),
      textInput({
        blockId: BROWSE_BLOCKS.contractId,
        label: 'Contract ID',
        hint: 'The NFT contract whose templates to list.',
        initial: values.contractId,
        maxLength: 200,
      }),
      conversation,
    ],
  });
}

export function readBrowseForm(values: ViewOutput['state']['values']): { contractId: string | undefined } {
  return { contractId: textValue(values, BROWSE_BLOCKS.contractId) };
}

export function checkContractId(
  contractId: string | undefined,
): { ok: true; contractId: string } | { ok: false; errors: Record<string, string> } {
  const parsed = contractIdSchema.safeParse(contractId ?? '');
  if (parsed.success) return { ok: true, contractId: parsed.data };
  const message = parsed.error.issues[0]?.message ?? 'is not valid';
  return {
    ok: false,
    errors: {
      [BROWSE_BLOCKS.contractId]: message === 'is required' ? 'Enter the contract ID.' : `The contract ID ${message}.`,
    },
  };
}
