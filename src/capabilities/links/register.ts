import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { openFormNeedingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { LINKS } from './actions.js';
import { createLinkStep } from './create-link-step.js';
import { linkFormView } from './link-form.js';
import { handleLinkFormSubmission } from './link-form-submission.js';
import { linkSubcommand } from './link-subcommand.js';

/**
 * Create a mint link: `/mintlink link` (and `/mintlink` alone), the shortcut, the Home button, the form, and
 * the "Create mint link" workflow step, each with the Mint account of the workspace it comes from.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const openLinkForm = openFormNeedingMintAccount(deps.mintAccounts, () => linkFormView());
  deps.commands.register(linkSubcommand(deps.mintAccounts), { default: true });
  deps.home.add({ order: 0, flow: LINKS.buttons.createFromHome });
  listen(app, deps).declared(LINKS, {
    shortcuts: { create: openLinkForm },
    buttons: { createFromHome: openLinkForm },
    forms: { create: handleLinkFormSubmission(deps) },
    steps: { createLink: createLinkStep(deps) },
  });
}
