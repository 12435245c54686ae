import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { openFormNeedingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
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
  const on = listen(app, deps);
  const openBrowseForm = openFormNeedingMintAccount(deps.mintAccounts, () => browseTemplatesView());
  deps.commands.register(templatesSubcommand(deps));
  deps.home.add({ order: 30, flow: { actionId: BROWSE_TEMPLATES_HOME_ACTION, label: 'Browse templates' } });
  on.shortcut(BROWSE_TEMPLATES_SHORTCUT, openBrowseForm);
  on.button(BROWSE_TEMPLATES_HOME_ACTION, openBrowseForm);
  for (const actionId of Object.values(PAGE_ACTIONS)) on.button(actionId, handlePageButton(deps));
  on.form(BROWSE_FORM_CALLBACK, 'Browse templates', handleBrowseTemplatesSubmission(deps));
  on.step(LIST_TEMPLATES_STEP, 'the templates', listTemplatesStep(deps));
}
