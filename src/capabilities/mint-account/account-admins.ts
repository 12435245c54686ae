import type { AdminCheck, SettingsAdmins } from '../../tenancy/workspaces/settings-admins.js';
import type { Workspaces } from '../../tenancy/workspaces/workspaces.js';

/**
 * Who may connect, replace and remove a workspace's Mint account: the person who installed the app there
 * (they are the first to need it, before anyone set anything up) and the workspace's settings admins
 * (SETTINGS_ADMINS, the admins named in the settings, the workspace's admins and owners).
 */
export class AccountAdmins {
  constructor(
    private readonly workspaces: Pick<Workspaces, 'installerOf'>,
    private readonly settingsAdmins: SettingsAdmins,
  ) {}

  /** `fresh`: ask Slack rather than trust a minute-old answer (for the change itself, not for Home). */
  async check(userId: string, teamId: string, options: { fresh?: boolean } = {}): Promise<AdminCheck> {
    if ((await this.workspaces.installerOf(teamId)) === userId) return { admin: true };
    return this.settingsAdmins.check(userId, teamId, options);
  }

  /** Who installed the app in the workspace (tenancy's installations say). */
  installerOf(teamId: string): Promise<string | undefined> {
    return this.workspaces.installerOf(teamId);
  }
}
