import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { openFormNeedingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { TEMPLATES } from './actions.js';
import { browseTemplatesView } from './browse-templates-form.js';
import { handleBrowseTemplatesSubmission } from './browse-templates-submission.js';
import { listTemplatesStep } from './list-templates-step.js';
import { handlePageButton } from './page-buttons.js';
import { templatesSubcommand } from './templates-subcommand.js';

/**
 * Browse NFT templates in a conversation: the subcommand, the shortcut, the Home button, the paging buttons;
 * and the "List NFT templates" workflow step.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const openBrowseForm = openFormNeedingMintAccount(deps.mintAccounts, () => browseTemplatesView());
  const turnPage = handlePageButton(deps);
  deps.commands.register(templatesSubcommand(deps));
  deps.home.add({ order: 30, flow: TEMPLATES.buttons.browseFromHome });
  listen(app, deps).declared(TEMPLATES, {
    shortcuts: { browse: openBrowseForm },
    buttons: { browseFromHome: openBrowseForm, previous: turnPage, next: turnPage, order: turnPage },
    forms: { browse: handleBrowseTemplatesSubmission(deps) },
    steps: { listTemplates: listTemplatesStep(deps) },
  });
}
