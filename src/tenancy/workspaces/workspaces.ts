import type { AuthorizeResult, InstallationQuery } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { NoInstallationError } from '../installations/installation-store.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { installationId, type StoredInstallation } from '../../platform/store/installation-rows.js';
import type { Store } from '../../platform/store/store.js';

/** Bolt's own authorization of a workspace (InstallProvider.authorize): it renews a token about to expire. */
export type AuthorizeWorkspace = (query: InstallationQuery<boolean>) => Promise<AuthorizeResult>;

/** What a capability does when a workspace removes the app: stop its work, cancel what waits on it. */
export type UninstallHandler = (teamId: string) => Promise<void>;

/** Who removed the app, as Slack says in `app_uninstalled` / `tokens_revoked`. */
export interface Uninstall {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  /** An Enterprise Grid org-wide installation was removed: every workspace it served goes with it. */
  isEnterpriseInstall: boolean;
  reason: 'app_uninstalled' | 'tokens_revoked';
  /** When Slack says it happened (the event's `event_time`, in seconds). */
  eventTime: number | undefined;
  /** `tokens_revoked`: the bot users whose tokens Slack revoked. */
  botUserIds?: string[];
}

/** Workspaces of an Enterprise Grid organization that left, or joined, its org-wide installation. */
export interface OrgWorkspaces {
  enterpriseId: string | undefined;
  teamIds: string[];
  reason: 'team_access_revoked' | 'app_uninstalled_team' | 'team_access_granted';
  /** When Slack says it happened (the event's `event_time`, in seconds). */
  eventTime: number | undefined;
}

/** What Workspaces needs of the installation store (installation-store.ts) beyond Bolt's authorization. */
export interface WorkspaceInstallations {
  /** Deletes it only if it is still the one read at `version`; false when it was written since, or is gone. */
  deleteIfUnchanged(query: InstallationQuery<boolean>, version: Date): Promise<boolean>;
  /** Told after each installation is stored (installed, installed again, renewed). */
  onStored(listener: (stored: { id: string; enterpriseId: string | undefined; orgWide: boolean }) => void): void;
}

export type WorkspacesMode =
  /** One workspace, one bot token (SLACK_BOT_TOKEN): its client serves every call. */
  | { kind: 'single'; client: WebClient }
  /** Distribution mode: each workspace's token from its installation. */
  | {
      kind: 'distributed';
      authorize: AuthorizeWorkspace;
      /** A client (patient with rate limits, with the app's hooks) for one bot token. */
      clientFor: (token: string) => WebClient;
      installations: WorkspaceInstallations;
    };

/**
 * How long a replica trusts which installation (its own, or an org-wide one) serves a workspace's background
 * work. Only the choice is kept: the installation itself is authorized afresh by Bolt (forgotten on every
 * replica when the change feed says it changed).
 */
const QUERY_CACHE_MS = 5_000;

/** How often rows without a workspace are looked for, in single-workspace mode. */
const ADOPT_EVERY_MS = 60_000;

/**
 * How often each org-wide installation's workspaces are listed from Slack again (auth.teams.list), besides
 * when an installation is stored: a workspace the organization added while no replica heard of it.
 */
const ORG_WORKSPACES_EVERY_MS = 60 * 60 * 1000;
/** auth.teams.list's largest page, and how many pages are read at most (Tier 2: 20+ a minute). */
const TEAMS_PAGE = 200;
const TEAMS_PAGES_AT_MOST = 250;

/** The workspace is gone (never installed, or uninstalled): background work for it stops. */
export class WorkspaceGone extends Error {}

/**
 * The workspaces the app serves, for work that no Slack request carries a client for: background work
 * (sweeper, reminders, bulk jobs, step completion, Home refreshes) reaches a workspace with that workspace's
 * own token, and a workspace that removes the app has its work stopped by every capability at once.
 */
export class Workspaces {
  private readonly handlers: UninstallHandler[] = [];
  private readonly clients = new LRUCache<string, WebClient>({ max: 2_000 });
  /**
   * Each workspace's installation query, kept a few seconds; made at the first query (an LRU with a ttl
   * allocates its 10,000 places at once, and a process that never reaches a workspace by query never needs it).
   */
  private queries: LRUCache<string, InstallationQuery<boolean>> | undefined;

  constructor(
    private readonly mode: WorkspacesMode,
    private readonly store: Pick<Store, 'installationRows' | 'adoptRowsWithoutWorkspace'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Before the first request, in single-workspace mode: rows written before rows carried their workspace
   * are the bot's workspace's (`homeTeamId`, from auth.test), so every read scoped to a workspace finds them.
   * Never throws: with the database away, `adoptingJob` does it later.
   */
  async prepare(homeTeamId: string | undefined): Promise<void> {
    if (this.mode.kind !== 'single' || !homeTeamId) return;
    try {
      const adopted = await this.store.adoptRowsWithoutWorkspace(homeTeamId);
      if (adopted > 0) this.logger.info({ team: homeTeamId, rows: adopted }, 'rows from before given their workspace');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not give rows from before their workspace; the next start tries again');
    }
  }

  /** True when each workspace installs the app itself ("Add to Slack"). */
  get distributed(): boolean {
    return this.mode.kind === 'distributed';
  }

  /** Who installed the app in the workspace (the org-wide installation's installer in an Enterprise Grid). */
  async installerOf(teamId: string): Promise<string | undefined> {
    const own = await this.store.installationRows.get(installationId({ teamId }) ?? '');
    if (own) return own.installerId;
    const org = await this.store.installationRows.installationOfTeam(teamId);
    return org ? (await this.store.installationRows.get(org))?.installerId : undefined;
  }

  /**
   * The bot's client in a workspace, for posts nobody waits on: it waits out Slack's rate limits. Throws
   * WorkspaceGone when the workspace has no installation (or, in distribution mode, no team id is known).
   */
  async slack(teamId: string | null | undefined): Promise<WebClient> {
    const { mode } = this;
    if (mode.kind === 'single') return mode.client;
    if (!teamId) throw new WorkspaceGone('work of no known workspace');
    const query = await this.queryFor(teamId);
    let token: string | undefined;
    try {
      token = (await mode.authorize(query)).botToken;
    } catch (error) {
      // Only a missing installation means gone; the database away or a failed token renewal pass, and the
      // caller tries again later.
      if (noInstallation(error))
        throw new WorkspaceGone(`no installation serves workspace ${teamId}`, { cause: error });
      throw error;
    }
    if (!token) throw new WorkspaceGone(`the installation of workspace ${teamId} has no bot token`);
    return this.clientFor(mode, token);
  }

  private clientFor(mode: Extract<WorkspacesMode, { kind: 'distributed' }>, token: string): WebClient {
    let client = this.clients.get(token);
    if (!client) {
      client = mode.clientFor(token);
      this.clients.set(token, client);
    }
    return client;
  }

  /**
   * The same every minute, as background work in single-workspace mode: after a start with the database away,
   * and during a rolling deploy, while replicas of an older version still write rows without a workspace.
   */
  adoptingJob(homeTeamId: () => string | undefined): Job | undefined {
    if (this.mode.kind !== 'single') return undefined;
    return {
      name: 'rows without a workspace adopted',
      everyMs: ADOPT_EVERY_MS,
      atStart: false,
      run: () => this.prepare(homeTeamId()),
      failed: () => undefined, // prepare() logs its own failures
    };
  }

  /** A capability's part of an uninstall; run for each workspace that removed the app. */
  onUninstall(handler: UninstallHandler): void {
    this.handlers.push(handler);
  }

  /**
   * The app was removed (or its bot token revoked): the installation is deleted, so no replica authorizes the
   * workspace again once the change feed tells it (at once), and every capability stops that workspace's work.
   * Reinstalling starts afresh with "Add to Slack".
   * An uninstall that is not about the current installation (Slack says it happened before the installation's
   * tokens were written, or it names a bot user that is not the installed one: a late delivery after a
   * reinstall) changes nothing, and says so in one log line.
   */
  async uninstalled(uninstall: Uninstall): Promise<void> {
    const { teamId, enterpriseId, isEnterpriseInstall } = uninstall;
    const orgInstallation = isEnterpriseInstall && enterpriseId ? `E${enterpriseId}` : undefined;
    const teams = new Set<string>(teamId && !orgInstallation ? [teamId] : []);
    // An org-wide installation removed: the workspaces it served, never one with an installation of its own
    // (read before the installation's deletion, which forgets them).
    if (orgInstallation)
      for (const team of await this.store.installationRows.teamsOf(orgInstallation))
        if (!(await this.hasOwnInstallation(team))) teams.add(team);
    if (this.mode.kind === 'distributed' && !(await this.removeInstallation(this.mode, uninstall))) return;
    await this.stopWork(teams);
    this.logger.info(
      { team: teamId, enterprise: enterpriseId, workspaces: teams.size, reason: uninstall.reason },
      'the app was removed from a workspace: its work is stopped',
    );
  }

  /**
   * Deletes the installation an uninstall is about: true when it is gone (or there was none: its workspace's
   * work is stopped all the same), false when the uninstall is not about the current installation.
   */
  private async removeInstallation(
    mode: Extract<WorkspacesMode, { kind: 'distributed' }>,
    uninstall: Uninstall,
  ): Promise<boolean> {
    const query = {
      teamId: uninstall.teamId,
      enterpriseId: uninstall.enterpriseId,
      isEnterpriseInstall: uninstall.isEnterpriseInstall,
    };
    const id = installationId(query);
    const installation = id ? await this.store.installationRows.get(id) : undefined;
    if (!id || !installation) return true;
    let why = notAbout(installation, uninstall);
    if (!why) {
      // Only the installation read above: one written meanwhile (a reinstall) is not this uninstall's.
      if (await mode.installations.deleteIfUnchanged(query, installation.updatedAt)) return true;
      if (!(await this.store.installationRows.exists(id))) return true; // the other event of the pair, on another replica
      why = 'the installation was written again while the uninstall ran';
    }
    this.logger.info(
      {
        installation: id,
        reason: uninstall.reason,
        eventTime: uninstall.eventTime,
        installationWrittenAt: installation.updatedAt.toISOString(),
        why,
      },
      'an uninstall that is not about the current installation: nothing changed',
    );
    return false;
  }

  /** Every capability stops each workspace's work; a part that fails does not stop the others. */
  private async stopWork(teams: Iterable<string>): Promise<void> {
    for (const team of teams) {
      for (const handler of this.handlers) {
        try {
          await handler(team);
        } catch (error) {
          // The others still run: a workspace half stopped is worse than one step that failed and says so.
          this.logger.error({ err: error, team }, 'a part of the uninstall failed');
        }
      }
      this.queries?.delete(team);
    }
  }

  /**
   * Workspaces left an organization's org-wide installation (`team_access_revoked`, `app_uninstalled_team`):
   * each one's work stops and its data goes as in an uninstall of that workspace alone; the org's installation
   * stays for its other workspaces. Only a workspace recorded as this organization's is touched: not one served
   * by an installation of its own, another organization's, or one never recorded. A leave that Slack says
   * happened before the workspace joined again (a late delivery) changes nothing, and says so in one log line.
   */
  async orgWorkspacesLeft(left: OrgWorkspaces): Promise<void> {
    const org = left.enterpriseId ? `E${left.enterpriseId}` : undefined;
    const leftAt = left.eventTime !== undefined ? new Date(left.eventTime * 1000) : new Date();
    const stopped: string[] = [];
    const kept: string[] = [];
    const rejoined: string[] = [];
    for (const team of new Set(left.teamIds)) {
      const membership = await this.store.installationRows.membershipOf(team);
      if (!org || membership?.installationId !== org || (await this.hasOwnInstallation(team))) {
        kept.push(team);
        continue;
      }
      const joinedAt = membership.joinedAt && Math.floor(membership.joinedAt.getTime() / 1000);
      // Compare-and-set in forgetTeam: a join recorded since the read above stands too.
      const joinedSince = left.eventTime !== undefined && joinedAt !== undefined && left.eventTime < joinedAt;
      if (joinedSince || !(await this.store.installationRows.forgetTeam(team, org, leftAt))) {
        rejoined.push(team);
        continue;
      }
      this.queries?.delete(team);
      stopped.push(team);
    }
    if (rejoined.length > 0)
      this.logger.info(
        { enterprise: left.enterpriseId, workspaces: rejoined, reason: left.reason, eventTime: left.eventTime },
        'a leave that happened before the workspaces joined the org-wide installation again: nothing changed',
      );
    if (rejoined.length > 0 && stopped.length === 0 && kept.length === 0) return;
    await this.stopWork(stopped);
    this.logger.info(
      { enterprise: left.enterpriseId, workspaces: stopped, kept, reason: left.reason },
      'workspaces left the org-wide installation: their work is stopped',
    );
  }

  /**
   * Workspaces joined an organization's org-wide installation (`team_access_granted`): recorded as its. A join
   * that Slack says happened before the workspace last left (a late delivery) changes nothing, and says so.
   */
  async orgWorkspacesJoined(joined: OrgWorkspaces): Promise<void> {
    const org = joined.enterpriseId ? `E${joined.enterpriseId}` : undefined;
    if (this.mode.kind !== 'distributed' || !org || !(await this.store.installationRows.exists(org))) return;
    const current: string[] = [];
    const stale: string[] = [];
    for (const team of new Set(joined.teamIds)) {
      const departed = await this.store.installationRows.departedAt(team, org);
      if (joined.eventTime !== undefined && departed && joined.eventTime * 1000 < departed.getTime()) stale.push(team);
      else current.push(team);
    }
    if (stale.length > 0)
      this.logger.info(
        { enterprise: joined.enterpriseId, workspaces: stale, reason: joined.reason, eventTime: joined.eventTime },
        'a join that happened before the workspaces left the org-wide installation: nothing changed',
      );
    if (current.length === 0) return;
    const recorded = await this.recordOrgTeams(org, current);
    this.logger.info(
      { enterprise: joined.enterpriseId, workspaces: recorded, reason: joined.reason },
      'workspaces joined the org-wide installation',
    );
  }

  /**
   * Background work in distribution mode: the workspaces of each org-wide installation, listed from Slack
   * (auth.teams.list, with the installation's own bot token) when it is stored and every hour, so that
   * background work reaches a workspace none of whose people has used the app yet.
   */
  orgWorkspacesJob(): Job | undefined {
    const { mode } = this;
    if (mode.kind !== 'distributed') return undefined;
    mode.installations.onStored((stored) => {
      if (!stored.orgWide || !stored.enterpriseId) return;
      void this.listOrgWorkspaces({ id: stored.id, enterpriseId: stored.enterpriseId }).catch((error: unknown) =>
        this.logger.warn(
          { err: error, installation: stored.id },
          'could not list the org’s workspaces; tried again within an hour',
        ),
      );
    });
    return {
      name: 'org workspaces listed',
      everyMs: ORG_WORKSPACES_EVERY_MS,
      run: async () => {
        for (const org of await this.store.installationRows.orgWide()) {
          try {
            await this.listOrgWorkspaces(org);
          } catch (error) {
            this.logger.warn(
              { err: error, installation: org.id },
              'could not list the org’s workspaces; tried again within an hour',
            );
          }
        }
      },
      failed: (error) =>
        this.logger.warn({ err: error }, 'could not read the org-wide installations; tried again within an hour'),
    };
  }

  /** Records the workspaces Slack lists for an org-wide installation (every page of auth.teams.list). */
  async listOrgWorkspaces(org: { id: string; enterpriseId: string }): Promise<void> {
    const { mode } = this;
    if (mode.kind !== 'distributed') return;
    const { botToken } = await mode.authorize({
      teamId: undefined,
      enterpriseId: org.enterpriseId,
      isEnterpriseInstall: true,
    });
    if (!botToken) return;
    const client = this.clientFor(mode, botToken);
    const listed: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < TEAMS_PAGES_AT_MOST; page += 1) {
      const answer = await client.auth.teams.list({ limit: TEAMS_PAGE, ...(cursor ? { cursor } : {}) });
      for (const team of answer.teams ?? []) if (team.id) listed.push(team.id);
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    const recorded = await this.recordOrgTeams(org.id, listed);
    this.logger.info(
      { installation: org.id, workspaces: listed.length, recorded: recorded.length },
      'the org-wide installation’s workspaces listed from Slack',
    );
  }

  /**
   * Records workspaces as served by an org-wide installation, but never one with an installation of its own,
   * nor one recorded as another installation's; returns those newly recorded.
   */
  private async recordOrgTeams(org: string, teamIds: readonly string[]): Promise<string[]> {
    const known = new Set(await this.store.installationRows.teamsOf(org));
    const fresh = [...new Set(teamIds)].filter((team) => !known.has(team));
    const recorded: string[] = [];
    for (let i = 0; i < fresh.length; i += 500) {
      const chunk = fresh.slice(i, i + 500);
      const own = await this.store.installationRows.versions(chunk.map((team) => `T${team}`));
      for (const team of chunk) {
        if (own.has(`T${team}`) || !(await this.store.installationRows.recordTeam(team, org))) continue;
        this.queries?.delete(team);
        recorded.push(team);
      }
    }
    return recorded;
  }

  private hasOwnInstallation(teamId: string): Promise<boolean> {
    return this.store.installationRows.exists(`T${teamId}`);
  }

  private async queryFor(teamId: string): Promise<InstallationQuery<boolean>> {
    const queries = (this.queries ??= new LRUCache({ max: 10_000, ttl: QUERY_CACHE_MS }));
    const known = queries.get(teamId);
    if (known) return known;
    // The workspace's own installation first; an org-wide one only for a workspace without its own.
    const org = (await this.hasOwnInstallation(teamId))
      ? undefined
      : await this.store.installationRows.installationOfTeam(teamId);
    const query: InstallationQuery<boolean> = org
      ? { teamId, enterpriseId: org.slice(1), isEnterpriseInstall: true }
      : { teamId, enterpriseId: undefined, isEnterpriseInstall: false };
    queries.set(teamId, query);
    return query;
  }
}

/**
 * The app's Workspaces: one bot token's client in single-workspace mode; in distribution mode, Bolt's
 * authorization and a patient client per workspace token.
 */
export function createWorkspaces(
  installs: { authorize: AuthorizeWorkspace; installations: WorkspaceInstallations } | undefined,
  patientClientFor: (token?: string) => WebClient,
  store: Pick<Store, 'installationRows' | 'adoptRowsWithoutWorkspace'>,
  logger: Logger,
): Workspaces {
  if (!installs) return new Workspaces({ kind: 'single', client: patientClientFor() }, store, logger);
  return new Workspaces(
    {
      kind: 'distributed',
      authorize: installs.authorize,
      clientFor: (token) => patientClientFor(token),
      installations: installs.installations,
    },
    store,
    logger,
  );
}

/**
 * Why an uninstall is not about this installation, if it is not: Slack says it happened before the
 * installation's tokens were written (whole seconds: Slack's event_time has no finer part), or it names bot
 * users of which none is the installed one.
 */
function notAbout(installation: StoredInstallation, uninstall: Uninstall): string | undefined {
  const writtenAt = Math.floor(installation.updatedAt.getTime() / 1000);
  if (uninstall.eventTime !== undefined && uninstall.eventTime < writtenAt)
    return 'it happened before the current installation was written';
  const installedBot = botUserOf(installation);
  if (uninstall.botUserIds && installedBot && !uninstall.botUserIds.includes(installedBot))
    return 'it names a bot user that is not the installed one';
  return undefined;
}

/** The installed bot's user id, as the installation keeps it (Bolt's `bot.userId`). */
function botUserOf(installation: StoredInstallation): string | undefined {
  const { bot } = installation.details;
  return typeof bot === 'object' && bot !== null && 'userId' in bot && typeof bot.userId === 'string'
    ? bot.userId
    : undefined;
}

/** Whether Bolt's authorization failed because there is no installation (it wraps the store's error). */
function noInstallation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 3; depth += 1) {
    if (e instanceof NoInstallationError) return true;
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- reads the optional `original` of a thrown SDK error, checked before it is used
    e = (e as { original?: unknown }).original ?? e.cause;
  }
  return false;
}
