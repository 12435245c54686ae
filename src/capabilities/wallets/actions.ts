import { declare } from '../../platform/slack/pipeline/declarations.js';

/** Everything the wallets capability answers in Slack, declared once (register.ts gives each its listener). */
export const WALLETS = declare('wallets', {
  shortcuts: { create: { callbackId: 'create_wallet' } },
  buttons: { createFromHome: { actionId: 'home_create_wallet', label: 'Create wallet' } },
  forms: { create: { callbackId: 'wallet_form', title: 'Create wallet' } },
  steps: { createWallet: { callbackId: 'create_wallet_step', thing: 'the wallet' } },
});
