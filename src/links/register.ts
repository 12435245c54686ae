import type { App, BlockAction, ButtonAction, GlobalShortcut, ViewSubmitAction } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { CREATE_LINK_STEP, createLinkStep } from './create-link-step.js';
import { guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import { LINK_FORM_CALLBACK, linkFormView } from './link-form.js';
import { handleLinkFormSubmission } from './link-form-submission.js';
import { linkSubcommand } from './link-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_LINK_SHORTCUT = 'create_mint_link';
export const CREATE_LINK_HOME_ACTION = 'home_create_link';

/**
 * Create a mint link: `/mintlink link` (and `/mintlink` alone), the shortcut, the Home button, the form, and
 * the "Create mint link" workflow step.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const openLinkForm = openForm(() => linkFormView(), deps.logger);
  deps.commands.register(linkSubcommand, { default: true });
  deps.home.add({ order: 0, flow: { actionId: CREATE_LINK_HOME_ACTION, label: 'Create mint link', primary: true } });
  app.shortcut<GlobalShortcut>(CREATE_LINK_SHORTCUT, openLinkForm);
  app.action<BlockAction<ButtonAction>>(CREATE_LINK_HOME_ACTION, openLinkForm);
  app.view<ViewSubmitAction>(
    LINK_FORM_CALLBACK,
    guardView(deps.logger, 'Create mint link', handleLinkFormSubmission(deps)),
  );
  app.function(CREATE_LINK_STEP, createLinkStep(deps));
}
