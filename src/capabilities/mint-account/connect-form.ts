import type { ViewOutput } from '@slack/bolt';
import type { InputBlock, KnownBlock, ModalView } from '@slack/types';
import type { MintAccount } from '../../tenancy/mint-accounts/mint-accounts.js';
import { checkMintBaseUrl, checkMintKey } from '../../tenancy/mint-accounts/mint-key.js';
import { context, section } from '../../platform/blocks/blocks.js';
import { INPUT_ACTION_ID, textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { inlineCode } from '../../platform/blocks/mrkdwn.js';
import { MINT_ACCOUNT } from './actions.js';

/** Block ids of the form's inputs: inline errors are keyed by them. */
export const ACCOUNT_BLOCKS = { apiKey: 'mint_api_key', baseUrl: 'mint_base_url' } as const;

/** Longer than any key, so that a paste gone wrong reaches the check and is told why, rather than cut. */
const KEY_INPUT_MAX_CHARS = 1000;

export interface ConnectFormOptions {
  /** The account connected now (the form then replaces its key). */
  current: MintAccount | undefined;
  /** The operator lets each workspace give its own base URL: the form asks for one, `defaultBaseUrl` otherwise. */
  baseUrl: { defaultBaseUrl: string } | undefined;
}

/**
 * "Connect your Mint account" (or replace its key). The key input is never filled in: the key is not sent
 * back to Slack, not even to the admin who typed it.
 */
export function connectFormView({ current, baseUrl }: ConnectFormOptions): ModalView {
  const blocks: KnownBlock[] = [
    section(
      current
        ? `The key ending ${inlineCode(current.keyLast4)} is replaced as soon as you save; calls under way finish with it.`
        : 'Mintlink reaches the Mint service with your organization’s own API key, for this Slack workspace only.',
    ),
    textInput({
      blockId: ACCOUNT_BLOCKS.apiKey,
      label: current ? 'New API key' : 'API key',
      hint: 'The key the Mint service issued to your organization (sent as x-api-key). It is stored encrypted; after you save it, only its last four characters are ever shown.',
      maxLength: KEY_INPUT_MAX_CHARS,
      placeholder: 'Paste the key',
    }),
  ];
  if (baseUrl) blocks.push(baseUrlInput(current?.baseUrl, baseUrl.defaultBaseUrl));
  blocks.push(
    context('Check it with your Mint service provider first: a key the service refuses shows up here, in Home.'),
  );
  return modal({
    callbackId: MINT_ACCOUNT.forms.connect.callbackId,
    title: current ? 'Replace Mint API key' : 'Connect Mint account',
    submit: current ? 'Replace' : 'Connect',
    close: 'Cancel',
    blocks,
  });
}

function baseUrlInput(initial: string | undefined, defaultBaseUrl: string): InputBlock {
  return {
    type: 'input',
    block_id: ACCOUNT_BLOCKS.baseUrl,
    optional: true,
    label: { type: 'plain_text', text: 'Mint service base URL' },
    hint: { type: 'plain_text', text: `Only if your organization uses its own address. Empty: ${defaultBaseUrl}` },
    element: {
      type: 'url_text_input',
      action_id: INPUT_ACTION_ID,
      ...(initial ? { initial_value: initial } : {}),
      placeholder: { type: 'plain_text', text: 'https://mint.example.com' },
    },
  };
}

export type ConnectFormCheck =
  { ok: true; apiKey: string; baseUrl: string | undefined } | { ok: false; errors: Record<string, string> };

/** The submitted form, checked; the errors never quote the key. */
export function checkConnectForm(
  values: ViewOutput['state']['values'],
  baseUrl: { asked: boolean; operators: string },
): ConnectFormCheck {
  const key = checkMintKey(raw(values, ACCOUNT_BLOCKS.apiKey));
  const url = baseUrl.asked
    ? checkMintBaseUrl(raw(values, ACCOUNT_BLOCKS.baseUrl), baseUrl.operators)
    : { ok: true as const, value: undefined };
  const errors: Record<string, string> = {};
  if (!key.ok) errors[ACCOUNT_BLOCKS.apiKey] = key.problem;
  if (!url.ok) errors[ACCOUNT_BLOCKS.baseUrl] = url.problem;
  if (!key.ok || !url.ok) return { ok: false, errors };
  return { ok: true, apiKey: key.value, baseUrl: url.value };
}

/** The input's text as typed (whitespace included: the check says what is wrong with it). */
function raw(values: ViewOutput['state']['values'], blockId: string): string | undefined {
  const value = values[blockId]?.[INPUT_ACTION_ID]?.value;
  return typeof value === 'string' ? value : undefined;
}

/** Shown once the form is taken, while the key is saved. */
export function savingView(replacing: boolean): ModalView {
  return modal({
    title: replacing ? 'Replace Mint API key' : 'Connect Mint account',
    close: 'Close',
    blocks: [section(':hourglass_flowing_sand: Saving the key…')],
  });
}

/** The outcome: which key is in use now (its last four characters). */
export function connectedView(account: MintAccount, previous: MintAccount | undefined): ModalView {
  const text = previous
    ? `:white_check_mark: *Mint API key replaced.* The key ending ${inlineCode(account.keyLast4)} replaces the key ending ${inlineCode(previous.keyLast4)}.`
    : `:white_check_mark: *Mint account connected.* Mintlink now reaches the Mint service with the key ending ${inlineCode(account.keyLast4)}: its commands, buttons and workflow steps work in this workspace.`;
  return modal({
    title: previous ? 'Mint API key replaced' : 'Mint account connected',
    close: 'Done',
    clearOnClose: true,
    blocks: [section(text), context('The other admins see the change in their Home tab.')],
  });
}
