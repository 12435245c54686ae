import type { CapabilityDeps } from '../../deps.js';
import { maxBulkConcurrency } from '../../tenancy/workspaces/settings-model.js';
import type { SettingsContext } from './save-settings.js';
import { UserGroups } from './user-groups.js';

export function settingsContext(deps: CapabilityDeps): SettingsContext {
  const logger = deps.logger.child({ capability: 'settings' });
  const slack = (teamId: string | undefined) => deps.workspaces.slack(teamId);
  return {
    store: deps.store,
    settings: deps.settings,
    admins: deps.settingsAdmins,
    groups: new UserGroups(slack, logger),
    slack,
    logger,
    home: deps.home,
    maxConcurrency: maxBulkConcurrency(deps.config),
  };
}

/** The request's workspace (single-workspace mode: the app's own, if Slack named none). */
export function workspaceOf(ctx: Pick<SettingsContext, 'settings'>, request: { teamId: string }): string {
  return request.teamId || ctx.settings.homeTeamId || '';
}
