import type { FeatureDeps } from '../app.js';
import type { CommandRegistry } from '../commands/command-registry.js';
import { guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import type { Routes } from '../slack-ui/routes.js';
import { WALLET_FORM_CALLBACK, walletFormView } from './wallet-form.js';
import { handleWalletFormSubmission } from './wallet-form-submission.js';
import { walletSubcommand } from './wallet-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_WALLET_SHORTCUT = 'create_wallet';

export function registerWallets(routes: Routes, commands: CommandRegistry, deps: FeatureDeps): void {
  commands.register(walletSubcommand);
  routes.shortcut(CREATE_WALLET_SHORTCUT, openForm(() => walletFormView(), deps.logger));
  routes.view(WALLET_FORM_CALLBACK, guardView(deps.logger, 'Create wallet', handleWalletFormSubmission(deps)));
}
