import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { openFormNeedingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { WALLETS } from './actions.js';
import { createWalletStep } from './create-wallet-step.js';
import { walletFormView } from './wallet-form.js';
import { handleWalletFormSubmission } from './wallet-form-submission.js';
import { walletSubcommand } from './wallet-subcommand.js';

/**
 * Create a wallet: `/mintlink wallet`, the shortcut, the Home button, the form, the workflow step, each with
 * the Mint account of the workspace it comes from.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const openWalletForm = openFormNeedingMintAccount(deps.mintAccounts, () => walletFormView());
  deps.commands.register(walletSubcommand(deps.mintAccounts));
  deps.home.add({ order: 10, flow: WALLETS.buttons.createFromHome });
  listen(app, deps).declared(WALLETS, {
    shortcuts: { create: openWalletForm },
    buttons: { createFromHome: openWalletForm },
    forms: { create: handleWalletFormSubmission(deps) },
    steps: { createWallet: createWalletStep(deps) },
  });
}
