import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { openFormNeedingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { CREATE_WALLET_STEP, createWalletStep } from './create-wallet-step.js';
import { WALLET_FORM_CALLBACK, walletFormView } from './wallet-form.js';
import { handleWalletFormSubmission } from './wallet-form-submission.js';
import { walletSubcommand } from './wallet-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_WALLET_SHORTCUT = 'create_wallet';
export const CREATE_WALLET_HOME_ACTION = 'home_create_wallet';

/**
 * Create a wallet: `/mintlink wallet`, the shortcut, the Home button, the form, the workflow step, each with
 * the Mint account of the workspace it comes from.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  const openWalletForm = openFormNeedingMintAccount(deps.mintAccounts, () => walletFormView());
  deps.commands.register(walletSubcommand(deps.mintAccounts));
  deps.home.add({ order: 10, flow: { actionId: CREATE_WALLET_HOME_ACTION, label: 'Create wallet' } });
  on.shortcut(CREATE_WALLET_SHORTCUT, openWalletForm);
  on.button(CREATE_WALLET_HOME_ACTION, openWalletForm);
  on.form(WALLET_FORM_CALLBACK, 'Create wallet', handleWalletFormSubmission(deps));
  on.step(CREATE_WALLET_STEP, 'the wallet', createWalletStep(deps));
}
