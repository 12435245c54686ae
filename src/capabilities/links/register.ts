import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { openFormNeedingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { CREATE_LINK_STEP, createLinkStep } from './create-link-step.js';
import { LINK_FORM_CALLBACK, linkFormView } from './link-form.js';
import { handleLinkFormSubmission } from './link-form-submission.js';
import { linkSubcommand } from './link-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const CREATE_LINK_SHORTCUT = 'create_mint_link';
export const CREATE_LINK_HOME_ACTION = 'home_create_link';

/**
 * Create a mint link: `/mintlink link` (and `/mintlink` alone), the shortcut, the Home button, the form, and
 * the "Create mint link" workflow step, each with the Mint account of the workspace it comes from.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  const openLinkForm = openFormNeedingMintAccount(deps.mintAccounts, () => linkFormView());
  deps.commands.register(linkSubcommand(deps.mintAccounts), { default: true });
  deps.home.add({ order: 0, flow: { actionId: CREATE_LINK_HOME_ACTION, label: 'Create mint link', primary: true } });
  on.shortcut(CREATE_LINK_SHORTCUT, openLinkForm);
  on.button(CREATE_LINK_HOME_ACTION, openLinkForm);
  on.form(LINK_FORM_CALLBACK, 'Create mint link', handleLinkFormSubmission(deps));
  on.step(CREATE_LINK_STEP, 'the mint link', createLinkStep(deps));
}
