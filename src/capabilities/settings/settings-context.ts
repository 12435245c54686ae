import type { WebClient } from '@slack/web-api';
import type { CapabilityDeps, CapabilityStore, HomeTab } from '../../deps.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { SettingsAdmins } from '../../tenancy/workspaces/settings-admins.js';
import type { WorkspaceSettingsSource } from '../../tenancy/workspaces/workspace-settings.js';
import { maxBulkConcurrency } from '../../tenancy/workspaces/settings-model.js';
import { UserGroups } from './user-groups.js';

/** What the settings capability works with. */
export interface SettingsContext {
  store: CapabilityStore;
  settings: WorkspaceSettingsSource;
  admins: SettingsAdmins;
  groups: UserGroups;
  /** The bot's client in a workspace (channel checks and announcements there). */
  slack: (teamId: string | undefined) => Promise<WebClient>;
  logger: Logger;
  home: HomeTab;
  /** The bulk concurrency's ceiling on this deployment. */
  maxConcurrency: number;
}

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
