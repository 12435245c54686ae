import type { App } from '@slack/bolt';
import type { AppDeps } from '../app.js';
import type { CommandRegistry } from '../commands/command-registry.js';
import { guardView } from '../slack-ui/guard-listener.js';
import { openModal } from '../slack-ui/open-modal.js';
import { LINK_FORM_CALLBACK, linkFormView } from './link-form.js';
import { handleLinkFormSubmission } from './link-form-submission.js';
import { linkSubcommand } from './link-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_LINK_SHORTCUT = 'create_mint_link';

export function registerLinks(app: App, commands: CommandRegistry, deps: AppDeps): void {
  commands.register(linkSubcommand, { default: true });
  app.shortcut(CREATE_LINK_SHORTCUT, async ({ ack, shortcut, client }) => {
    await ack();
    await openModal(client, shortcut.trigger_id, linkFormView(), { logger: deps.logger });
  });
  app.view(LINK_FORM_CALLBACK, guardView(deps.logger, 'Create mint link', handleLinkFormSubmission(deps)));
}
