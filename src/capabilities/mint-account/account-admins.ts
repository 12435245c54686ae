import { installationId } from '../../platform/store/installation-rows.js';
import type { Store } from '../../platform/store/store.js';
import type { AdminCheck, SettingsAdmins } from '../../tenancy/workspaces/settings-admins.js';

/**
 * Who may connect, replace and remove a workspace's Mint account: the person who installed the app there
 * (they are the first to need it, before anyone set anything up) and the workspace's settings admins
 * (SETTINGS_ADMINS, the admins named in the settings, the workspace's admins and owners).
 */
export class AccountAdmins {
  constructor(
    private readonly store: Pick<Store, 'installationRows'>,
    private readonly settingsAdmins: SettingsAdmins,
  ) {}

  /** `fresh`: ask Slack rather than trust a minute-old answer (for the change itself, not for Home). */
  async check(userId: string, teamId: string, options: { fresh?: boolean } = {}): Promise<AdminCheck> {
    if ((await this.installerOf(teamId)) === userId) return { admin: true };
    return this.settingsAdmins.check(userId, teamId, options);
  }

  /** Who installed the app in the workspace (the org-wide installation's installer in an Enterprise Grid). */
  async installerOf(teamId: string): Promise<string | undefined> {
    const own = await this.store.installationRows.get(installationId({ teamId }) ?? '');
    if (own) return own.installerId;
    const org = await this.store.installationRows.installationOfTeam(teamId);
    return org ? (await this.store.installationRows.get(org))?.installerId : undefined;
  }
}
