import type { AuthorizeResult, InstallationQuery } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { NoInstallationError } from '../installations/installation-store.js';
import { startPeriodic } from '../lifecycle/periodic-work.js';
import type { Logger } from '../logging/create-logger.js';
import type { Store } from '../store/store.js';

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
      /** Deletes an installation and forgets it on this replica (Bolt's InstallationStore.deleteInstallation). */
      deleteInstallation: (query: InstallationQuery<boolean>) => Promise<void>;
    };

/**
 * How long a replica trusts which installation (its own, or an org-wide one) serves a workspace's background
 * work. Only the choice is kept: the installation itself is authorized afresh by Bolt (checked every 2 s).
 */
const QUERY_CACHE_MS = 5_000;

/** How often rows without a workspace are looked for, in single-workspace mode. */
const ADOPT_EVERY_MS = 60_000;

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
  private readonly queries = new LRUCache<string, InstallationQuery<boolean>>({ max: 10_000, ttl: QUERY_CACHE_MS });

  constructor(
    private readonly mode: WorkspacesMode,
    private readonly store: Pick<Store, 'installations' | 'adoptRowsWithoutWorkspace'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Before the first request, in single-workspace mode: rows written before rows carried their workspace
   * are the bot's workspace's (`homeTeamId`, from auth.test), so every read scoped to a workspace finds them.
   * Never throws: with the database away, `keepAdopting` does it later.
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
  keepAdopting(homeTeamId: () => string | undefined): () => Promise<void> {
    if (this.mode.kind !== 'single') return () => Promise.resolve();
    return startPeriodic({
      everyMs: ADOPT_EVERY_MS,
      atStart: false,
      run: () => this.prepare(homeTeamId()),
      failed: () => undefined, // prepare() logs its own failures
    });
  }

  /** A capability's part of an uninstall; run for each workspace that removed the app. */
  onUninstall(handler: UninstallHandler): void {
    this.handlers.push(handler);
  }

  /**
   * The app was removed (or its bot token revoked): every capability stops that workspace's work, then the
   * installation is deleted, so no replica authorizes the workspace again after its next check (2 s).
   * Reinstalling starts afresh with "Add to Slack".
   */
  async uninstalled(uninstall: Uninstall): Promise<void> {
    const { teamId, enterpriseId, isEnterpriseInstall } = uninstall;
    const orgInstallation = isEnterpriseInstall && enterpriseId ? `E${enterpriseId}` : undefined;
    const teams = new Set<string>(teamId && !orgInstallation ? [teamId] : []);
    // An org-wide installation removed: the workspaces it served, never one with an installation of its own.
    if (orgInstallation)
      for (const team of await this.store.installations.teamsOf(orgInstallation))
        if (!(await this.hasOwnInstallation(team))) teams.add(team);
    for (const team of teams) {
      for (const handler of this.handlers) {
        try {
          await handler(team);
        } catch (error) {
          // The others still run: a workspace half stopped is worse than one step that failed and says so.
          this.logger.error({ err: error, team }, 'a part of the uninstall failed');
        }
      }
      this.queries.delete(team);
    }
    if (this.mode.kind === 'distributed')
      await this.mode.deleteInstallation({ teamId, enterpriseId, isEnterpriseInstall });
    this.logger.info(
      { team: teamId, enterprise: enterpriseId, workspaces: teams.size, reason: uninstall.reason },
      'the app was removed from a workspace: its work is stopped',
    );
  }

  private hasOwnInstallation(teamId: string): Promise<boolean> {
    return this.store.installations.exists(`T${teamId}`);
  }

  private async queryFor(teamId: string): Promise<InstallationQuery<boolean>> {
    const known = this.queries.get(teamId);
    if (known) return known;
    // The workspace's own installation first; an org-wide one only for a workspace without its own.
    const org = (await this.hasOwnInstallation(teamId))
      ? undefined
      : await this.store.installations.installationOfTeam(teamId);
    const query: InstallationQuery<boolean> = org
      ? { teamId, enterpriseId: org.slice(1), isEnterpriseInstall: true }
      : { teamId, enterpriseId: undefined, isEnterpriseInstall: false };
    this.queries.set(teamId, query);
    return query;
  }
}

/**
 * The app's Workspaces: one bot token's client in single-workspace mode; in distribution mode, Bolt's
 * authorization and a patient client per workspace token.
 */
export function createWorkspaces(
  installs: { authorize: AuthorizeWorkspace; installations: InstallationStoreLike } | undefined,
  patientClientFor: (token?: string) => WebClient,
  store: Pick<Store, 'installations' | 'adoptRowsWithoutWorkspace'>,
  logger: Logger,
): Workspaces {
  if (!installs) return new Workspaces({ kind: 'single', client: patientClientFor() }, store, logger);
  return new Workspaces(
    {
      kind: 'distributed',
      authorize: installs.authorize,
      clientFor: (token) => patientClientFor(token),
      deleteInstallation: (query) => installs.installations.deleteInstallation(query),
    },
    store,
    logger,
  );
}

/** What Workspaces needs of Bolt's InstallationStore. */
interface InstallationStoreLike {
  deleteInstallation(query: InstallationQuery<boolean>): Promise<void>;
}

/** Whether Bolt's authorization failed because there is no installation (it wraps the store's error). */
function noInstallation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 3; depth += 1) {
    if (e instanceof NoInstallationError) return true;
    e = (e as { original?: unknown }).original ?? e.cause;
  }
  return false;
}
