import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { accountContext, refreshAdminsOf } from './account-context.js';
import { mintAccountHomeEntry } from './home-entry.js';
import { openConnectForm } from './open-connect-form.js';
import { removeAccount } from './remove-account.js';
import { saveAccount } from './save-account.js';
import { MINT_ACCOUNT } from './actions.js';

/**
 * Each workspace's own Mint account (distribution mode): on App Home for its admins (the installer and the
 * settings admins), the form that takes the key, Replace and Remove; every change audited (the last four
 * characters of the key, never the key) and shown on the other admins' Homes. A click or a submission from
 * anyone else, forged or not, is refused and audited. When the workspace removes the app, its key goes too.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const ctx = accountContext(deps);
  deps.home.add(mintAccountHomeEntry(ctx.accounts, ctx.admins));
  // The service refused the key, or takes it again: its admins see it without opening Home again.
  ctx.accounts.onChange(({ teamId, change }) => {
    if (change === 'refused' || change === 'accepted') refreshAdminsOf(ctx, teamId);
  });
  deps.workspaces.onUninstall(async (teamId) => {
    const removed = await ctx.accounts.remove(teamId, { by: 'system', origin: 'app uninstalled' });
    if (removed) ctx.logger.info({ team: teamId }, 'the workspace removed the app: its Mint API key is deleted');
  });
  // The accounts' connections close with the app (the operator's client is closed by whoever made it).
  deps.background.add(() => () => ctx.accounts.close());

  const openForm = openConnectForm(ctx);
  listen(app, deps).declared(MINT_ACCOUNT, {
    buttons: { connect: openForm, replace: openForm, remove: removeAccount(ctx) },
    forms: { connect: saveAccount(ctx) },
  });
}
