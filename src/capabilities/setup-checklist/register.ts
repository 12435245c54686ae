import type { App } from '@slack/bolt';
import { SETUP_CHECKLIST } from './actions.js';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { checkAgain } from './check-again.js';
import { checklistContext } from './checklist-context.js';
import { checklistHomeEntry } from './home-entry.js';

/**
 * The Setup checklist at the top of App Home, for settings admins only, while some check of the workspace's
 * setup fails (the setup doctor's checks, asked of Slack and the database in the background, never during a
 * Home publish), with a button to check again. In single-workspace mode it covers the operator's part too
 * (the database, the mode); in distribution mode only what the workspace's admins can fix.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const ctx = checklistContext(deps);
  // A Mint account connected, replaced, refused or accepted again: the Mint item is out of date.
  deps.mintAccounts.onChange(({ teamId }) => ctx.reports.forget(teamId));
  // A Mint call ended: the Mint item of the workspace's checklist says so at its next Home publish.
  deps.mintCalls?.onCall((account) =>
    ctx.reports.replaceItem(
      (teamId) => ctx.checker.callConcerns(account, teamId),
      'mint',
      (teamId) => ctx.checker.mintItem(teamId),
    ),
  );
  deps.home.add(checklistHomeEntry(ctx));
  listen(app, deps).declared(SETUP_CHECKLIST, { buttons: { checkAgain: checkAgain(ctx) } });
}
