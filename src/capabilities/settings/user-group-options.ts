import type { OptionsRequest } from '../../platform/slack/pipeline/listen.js';
import type { SettingsContext } from './settings-context.js';
import { groupOption } from './settings-form.js';

/** The settings form's user-group pickers: the workspace's groups matching what the admin typed. */
export function userGroupOptions(ctx: SettingsContext) {
  return async (request: OptionsRequest): Promise<void> => {
    const { ack, body, teamId: team } = request;
    // Only the settings form has these pickers: nobody else gets the workspace's groups listed.
    if (!(await ctx.admins.check(body.user.id, team)).admin) return ack({ options: [] });
    const groups = await ctx.groups.matching(body.value, team).catch(() => []);
    await ack({ options: groups.map((g) => groupOption(g.id, (id) => ctx.groups.label(id, team))) });
  };
}
