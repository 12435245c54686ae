import type { App, BlockAction, ButtonAction, GlobalShortcut, ViewSubmitAction } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { CREATE_WALLET_STEP, createWalletStep } from './create-wallet-step.js';
import { guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import { WALLET_FORM_CALLBACK, walletFormView } from './wallet-form.js';
import { handleWalletFormSubmission } from './wallet-form-submission.js';
import { walletSubcommand } from './wallet-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_WALLET_SHORTCUT = 'create_wallet';
export const CREATE_WALLET_HOME_ACTION = 'home_create_wallet';

/** Create a wallet: `/mintlink wallet`, the shortcut, the Home button, the form, the workflow step. */
export function register(app: App, deps: CapabilityDeps): void {
  const openWalletForm = openForm(() => walletFormView(), deps.logger);
  deps.commands.register(walletSubcommand);
  deps.home.add({ order: 10, flow: { actionId: CREATE_WALLET_HOME_ACTION, label: 'Create wallet' } });
  app.shortcut<GlobalShortcut>(CREATE_WALLET_SHORTCUT, openWalletForm);
  app.action<BlockAction<ButtonAction>>(CREATE_WALLET_HOME_ACTION, openWalletForm);
  app.view<ViewSubmitAction>(
    WALLET_FORM_CALLBACK,
    guardView(deps.logger, 'Create wallet', handleWalletFormSubmission(deps)),
  );
  app.function(CREATE_WALLET_STEP, createWalletStep(deps));
}
