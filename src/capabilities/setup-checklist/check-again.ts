import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { RequestEnded, refused } from '../../platform/slack/pipeline/request-ended.js';
import type { ChecklistContext } from './checklist-context.js';

/**
 * The checklist's "Check again": a fresh check of the workspace (settings admins only, at most one per
 * cooldown), its result on the presser's Home.
 */
export function checkAgain(ctx: ChecklistContext) {
  return async ({ body, teamId }: ButtonRequest): Promise<void> => {
    if (!(await ctx.settingsAdmins.check(body.user.id, teamId, { fresh: true })).admin)
      throw refused(':no_entry: Only settings admins can check the setup.');
    const press = ctx.reports.press(teamId, ctx.settingsBasis(teamId));
    if (press.kind === 'too-soon')
      throw new RequestEnded(
        'busy',
        `:hourglass: The setup was checked ${Math.round((Date.now() - press.checkedAt) / 1000)} s ago: press Check again in ${Math.ceil(press.againInMs / 1000)} s.`,
      );
    ctx.home.refreshIn(teamId, [body.user.id]); // the checklist says "checking…" while it runs
    await press.done;
    ctx.home.refreshIn(teamId, [body.user.id]);
    if (press.kind === 'joined')
      throw new RequestEnded(
        'busy',
        ':hourglass: A check of the setup was already under way when you pressed: your Home shows its result.',
      );
  };
}
