import type { FeatureDeps } from '../app.js';
import type { CommandRegistry } from '../commands/command-registry.js';
import { guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import type { Routes } from '../slack-ui/routes.js';
import { LINK_FORM_CALLBACK, linkFormView } from './link-form.js';
import { handleLinkFormSubmission } from './link-form-submission.js';
import { linkSubcommand } from './link-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_LINK_SHORTCUT = 'create_mint_link';

export function registerLinks(routes: Routes, commands: CommandRegistry, deps: FeatureDeps): void {
  commands.register(linkSubcommand, { default: true });
  routes.shortcut(CREATE_LINK_SHORTCUT, openForm(() => linkFormView(), deps.logger));
  routes.view(LINK_FORM_CALLBACK, guardView(deps.logger, 'Create mint link', handleLinkFormSubmission(deps)));
}
