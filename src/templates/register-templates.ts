import type { FeatureDeps } from '../app.js';
import type { CommandRegistry } from '../commands/command-registry.js';
import { guardAction, guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import type { Routes } from '../slack-ui/routes.js';
import { BROWSE_FORM_CALLBACK, browseTemplatesView } from './browse-templates-form.js';
import { handleBrowseTemplatesSubmission } from './browse-templates-submission.js';
import { PAGE_ACTION_PATTERN, handlePageButton } from './page-buttons.js';
import { templatesSubcommand } from './templates-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const BROWSE_TEMPLATES_SHORTCUT = 'browse_templates';

export function registerTemplates(routes: Routes, commands: CommandRegistry, deps: FeatureDeps): void {
  commands.register(templatesSubcommand(deps));
  routes.action(PAGE_ACTION_PATTERN, guardAction(deps.logger, handlePageButton(deps)));
  routes.shortcut(BROWSE_TEMPLATES_SHORTCUT, openForm(() => browseTemplatesView(), deps.logger));
  routes.view(BROWSE_FORM_CALLBACK, guardView(deps.logger, 'Browse templates', handleBrowseTemplatesSubmission(deps)));
}
