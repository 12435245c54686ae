import type { App, BlockAction, ButtonAction, GlobalShortcut, ViewSubmitAction } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { guardAction, guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import { BROWSE_FORM_CALLBACK, browseTemplatesView } from './browse-templates-form.js';
import { handleBrowseTemplatesSubmission } from './browse-templates-submission.js';
import { LIST_TEMPLATES_STEP, listTemplatesStep } from './list-templates-step.js';
import { handlePageButton } from './page-buttons.js';
import { PAGE_ACTIONS } from './template-page-message.js';
import { templatesSubcommand } from './templates-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const BROWSE_TEMPLATES_SHORTCUT = 'browse_templates';
export const BROWSE_TEMPLATES_HOME_ACTION = 'home_browse_templates';

/**
 * Browse NFT templates in a conversation: the subcommand, the shortcut, the Home button, the paging buttons;
 * and the "List NFT templates" workflow step.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const openBrowseForm = openForm(() => browseTemplatesView(), deps.logger);
  deps.commands.register(templatesSubcommand(deps));
  deps.home.add({ order: 30, flow: { actionId: BROWSE_TEMPLATES_HOME_ACTION, label: 'Browse templates' } });
  app.shortcut<GlobalShortcut>(BROWSE_TEMPLATES_SHORTCUT, openBrowseForm);
  app.action<BlockAction<ButtonAction>>(BROWSE_TEMPLATES_HOME_ACTION, openBrowseForm);
  for (const actionId of Object.values(PAGE_ACTIONS)) {
    app.action<BlockAction<ButtonAction>>(actionId, guardAction(deps.logger, handlePageButton(deps)));
  }
  app.view<ViewSubmitAction>(
    BROWSE_FORM_CALLBACK,
    guardView(deps.logger, 'Browse templates', handleBrowseTemplatesSubmission(deps)),
  );
  app.function(LIST_TEMPLATES_STEP, listTemplatesStep(deps));
}
