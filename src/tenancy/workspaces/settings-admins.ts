import type { UsersInfoResponse, WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Approvers } from './approvers.js';
import { withDeadline } from '../../platform/ops/lifecycle/with-deadline.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import type { People } from './settings-model.js';
import type { WorkspaceSettingsSource } from './workspace-settings.js';

export type AdminCheck = { admin: true } | { admin: false; problem?: string };

/** Slack gets this long to answer a check: it runs before an ack or a views.open (3 s for both). */
const DEADLINE_MS = 1_500;

/**
 * Who may change the settings: the settings' admins (as changed in Slack), users and members of user groups;
 * and always those of SETTINGS_ADMINS and the workspace's admins and owners as Slack reports them (users.info,
 * users:read). Answers are cached a minute for Home tabs; the open and the save ask afresh.
 *
 * Shared (not the settings capability's own): whoever administers a workspace's settings also administers
 * what else belongs to the workspace as a whole, such as its Mint account.
 */
export class SettingsAdmins {
  /** users.info's verdict by workspace and user, once one was asked for (see `workspaceAdmins`). */
  private verdicts: LRUCache<string, boolean> | undefined;
  /** The bot's client in a workspace (users.info is asked with that workspace's token). */
  private readonly clientOf: (teamId: string | undefined) => Promise<WebClient>;

  constructor(
    private readonly settings: WorkspaceSettingsSource,
    /** The app's one membership check of users and user groups (one cache of group members). */
    private readonly members: Approvers,
    client: WebClient | ((teamId: string | undefined) => Promise<WebClient>),
    private readonly logger: Logger,
  ) {
    this.clientOf = typeof client === 'function' ? client : () => Promise.resolve(client);
  }

  /**
   * users.info's verdict by workspace and user: a workspace admin or owner, or not. Made at the first check
   * that asks Slack: an LRU with a ttl allocates all its places at once.
   */
  private get workspaceAdmins(): LRUCache<string, boolean> {
    return (this.verdicts ??= new LRUCache<string, boolean>({
      max: 1_000,
      ttl: 60_000,
      fetchMethod: async (key) => {
        const [team, userId] = key.split(' ');
        const client = await this.clientOf(team || undefined);
        const { user } = await client.users.info({ user: userId ?? '' });
        return Boolean(user && adminOf(user, team));
      },
    }));
  }

  /** Whether `userId` administers the settings of `teamId` now; `fresh` asks Slack rather than the cache. */
  async check(userId: string, teamId: string | undefined, options: { fresh?: boolean } = {}): Promise<AdminCheck> {
    return this.checkAmong(this.settings.current(teamId).values.settingsAdmins, userId, { ...options, teamId });
  }

  /** Whether `userId` would be a settings admin (of `teamId`, the app's workspace by default) if the admins were `admins`. */
  async checkAmong(
    admins: People,
    userId: string,
    options: { fresh?: boolean; teamId?: string | undefined } = {},
  ): Promise<AdminCheck> {
    // A request always names its workspace (the pipeline decides it); work of no request (a Home refreshed in
    // the background for a tab of no workspace) means the app's own, in single-workspace mode only.
    const teamId = options.teamId ?? this.settings.homeTeamId;
    // Nobody can lock a workspace out of its settings (an admin who names only a deactivated user, say): the
    // operator's SETTINGS_ADMINS and the workspace's admins and owners always count.
    const operators = this.settings.defaults.settingsAdmins;
    const among = {
      users: [...new Set([...admins.users, ...operators.users])],
      userGroups: [...new Set([...admins.userGroups, ...operators.userGroups])],
    };
    let problem: string | undefined;
    if (among.users.length + among.userGroups.length > 0) {
      const found = await this.members.check(userId, { among, askSlack: options.fresh ? 'always' : undefined, teamId });
      if (found.approver) return { admin: true };
      problem = found.problem;
    }
    const workspace = await this.workspaceAdmin(userId, teamId, options.fresh);
    if (workspace.admin || !problem) return workspace;
    return { admin: false, problem };
  }

  /** Everyone named in `admins` (group members read now), or the group that could not be read. */
  people(admins: People, teamId: string | undefined) {
    return this.members.people(admins, teamId);
  }

  private async workspaceAdmin(userId: string, teamId: string | undefined, fresh = false): Promise<AdminCheck> {
    try {
      const load = this.workspaceAdmins.fetch(`${teamId ?? ''} ${userId}`, { forceRefresh: fresh });
      load.catch(() => undefined); // a late failure after the deadline must not crash
      return (await withDeadline(load, DEADLINE_MS)) ? { admin: true } : { admin: false };
    } catch (error) {
      this.logger.warn(
        { err: error, user: userId, team: teamId },
        'could not ask Slack whether a user is a workspace admin',
      );
      return {
        admin: false,
        problem: `Slack did not say whether you are a workspace admin (${slackErrorCode(error) ?? 'no answer'})`,
      };
    }
  }
}

/** What users.info says of a person that decides whether they administer a workspace. */
type SlackUser = NonNullable<UsersInfoResponse['user']>;

/**
 * Whether Slack's answer makes this person an admin or owner of workspace `teamId`. users.info answers for
 * people of other organizations too (Slack Connect): their is_admin / is_owner speak of their own
 * organization, so they count only for someone who belongs to this workspace (their team_id is it, or, in an
 * Enterprise Grid organization, it is one of their workspaces), is no stranger to it, and no guest. Without a
 * workspace to compare with (the bot's own not yet known), nobody counts: a refusal is safe, a wrong yes is not.
 */
function adminOf(user: SlackUser, teamId: string | undefined): boolean {
  if (!teamId || user.is_stranger || user.is_restricted || user.is_ultra_restricted) return false;
  const member = user.team_id === teamId || (user.enterprise_user?.teams ?? []).includes(teamId);
  return member && Boolean(user.is_admin || user.is_owner || user.is_primary_owner);
}
