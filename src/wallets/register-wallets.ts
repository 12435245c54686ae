import type { App } from '@slack/bolt';
import type { AppDeps } from '../app.js';
import type { CommandRegistry } from '../commands/command-registry.js';
import { guardView } from '../slack-ui/guard-listener.js';
import { openModal } from '../slack-ui/open-modal.js';
import { WALLET_FORM_CALLBACK, walletFormView } from './wallet-form.js';
import { handleWalletFormSubmission } from './wallet-form-submission.js';
import { walletSubcommand } from './wallet-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_WALLET_SHORTCUT = 'create_wallet';

export function registerWallets(app: App, commands: CommandRegistry, deps: AppDeps): void {
  commands.register(walletSubcommand);
  app.shortcut(CREATE_WALLET_SHORTCUT, async ({ ack, shortcut, client }) => {
    await ack();
    await openModal(client, shortcut.trigger_id, walletFormView(), { logger: deps.logger });
  });
  app.view(WALLET_FORM_CALLBACK, guardView(deps.logger, 'Create wallet', handleWalletFormSubmission(deps)));
}
