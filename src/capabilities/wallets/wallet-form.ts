import type { ViewOutput } from '@slack/bolt';
import { WALLETS } from './actions.js';
import type { ModalView } from '@slack/types';
import { customerIdProblems } from '../../platform/mint/customer-ids.js';
import type { CreateWalletRequest } from '../../platform/mint/schemas.js';
import { context, problemBanner } from '../../platform/blocks/blocks.js';
import { textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { textValue } from '../../platform/blocks/view-state.js';

export const WALLET_BLOCKS = { customerId: 'customer_id' } as const;

export interface WalletFormValues {
  customerId?: string | undefined;
}

/** The "Create wallet" modal: one optional field; empty means a new user. */
export function walletFormView(values: WalletFormValues = {}, problem?: string): ModalView {
  return modal({
    callbackId: WALLETS.forms.create.callbackId,
    title: 'Create wallet',
    submit: 'Create',
    close: 'Cancel',
    blocks: [
      ...(problem ? [problemBanner(problem)] : []),
      textInput({
        blockId: WALLET_BLOCKS.customerId,
        label: 'Customer ID',
        optional: true,
        hint: 'The customer to create the wallet for. Leave empty to create a new user with the wallet.',
        initial: values.customerId,
        maxLength: 128,
      }),
      context('The Mint service chooses the chain the wallet is created on.'),
    ],
  });
}

export function readWalletForm(values: ViewOutput['state']['values']): WalletFormValues {
  return { customerId: textValue(values, WALLET_BLOCKS.customerId) };
}

export type WalletFormCheck =
  { ok: true; request: CreateWalletRequest } | { ok: false; errors: Record<string, string> };

export function checkWalletForm(values: WalletFormValues): WalletFormCheck {
  if (!values.customerId) return { ok: true, request: {} };
  const problem = customerIdProblems([values.customerId]);
  if (problem) return { ok: false, errors: { [WALLET_BLOCKS.customerId]: problem } };
  return { ok: true, request: { userId: values.customerId } };
}
