import { Migrator, sql, type Kysely } from 'kysely';
import { type ChangeFeed, InProcessChangeFeed, PostgresChangeFeed } from '../changes/change-feed.js';
import type { StoreLocation } from '../ops/config/config.js';
import { withDeadline } from '../ops/lifecycle/with-deadline.js';
import type { Logger } from '../ops/telemetry/create-logger.js';
import type { Scrubber } from '../ops/telemetry/secret-scrubber.js';
import { AuditLogPages } from './audit-log-pages.js';
import { AuditLog } from './audit-log.js';
import { DeletionReminders } from './deletion-reminders.js';
import { BulkJobs } from './bulk-jobs/jobs.js';
import { DeletionApprovals, DeletionRequests } from './deletion-requests.js';
import { HistoryBackfill } from './history/backfill.js';
import { HistoryPeople } from './history/people.js';
import { HistoryRows } from './history/search.js';
import { HomeTabs } from './home-tabs.js';
import { InstallationRows } from './installation-rows.js';
import { MintAccountRows } from './mint-account-rows.js';
import { MintCallOutcomeRows } from './mint-call-outcomes.js';
import { migrationProvider } from './migrations/index.js';
import { OnceKeys } from './once-keys.js';
import { openDatabase } from './open-database.js';
import type { SqliteFileTurns } from './sqlite-dialect.js';
import { ScrubSecretsPlugin } from './scrub-secrets-plugin.js';
import { StepCompletions } from './step-completions.js';
import type { Tables } from './tables.js';
import { WorkspaceSettingsRows } from './workspace-settings-rows.js';

/** The app's persistence: one SQL database (SQLite or PostgreSQL) behind small repositories. */
export interface Store {
  readonly engine: StoreLocation['engine'];
  readonly audit: AuditLog;
  readonly deletionRequests: DeletionRequests;
  readonly homeTabs: HomeTabs;
  readonly onceKeys: OnceKeys;
  readonly stepCompletions: StepCompletions;
  readonly deletionApprovals: DeletionApprovals;
  readonly deletionReminders: DeletionReminders;
  readonly auditLogPages: AuditLogPages;
  /** What was made through the app (links, wallets, deletion requests, bulk jobs), written with its audit entry. */
  readonly history: HistoryRows;
  /** The Slack names of History's makers and deciders, which a search's words find them by. */
  readonly historyPeople: HistoryPeople;
  /** The one-time copy into History of the audit entries written before it. */
  readonly historyBackfill: HistoryBackfill;
  readonly bulkJobs: BulkJobs;
  readonly workspaceSettingsRows: WorkspaceSettingsRows;
  /** Distribution mode's installations (tokens sealed). */
  readonly installationRows: InstallationRows;
  /** Distribution mode's Mint accounts, one per workspace (API keys sealed). */
  readonly mintAccountRows: MintAccountRows;
  /** How each Mint account's last real call ended (for the setup doctor). */
  readonly mintCallOutcomes: MintCallOutcomeRows;
  /**
   * What every replica must learn at once (installations, org workspaces, Mint accounts, settings): the
   * repositories above announce their changes on it, and tenancy's caches follow it.
   */
  readonly changes: ChangeFeed;
  /**
   * Runs `work` in one transaction: a change of state and its audit entry are written together or not
   * at all.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /** Applies pending migrations; safe when several replicas start at once (Kysely takes a lock). */
  migrate(): Promise<void>;
  /**
   * Which migrations this database has had and which it still needs, read without changing anything (no table
   * is created): a database the app has never used has none applied.
   */
  migrationState(): Promise<{ applied: string[]; pending: string[] }>;
  /**
   * Gives rows written before every row carried its workspace (team id null) to `teamId`; returns how many.
   * Single-workspace mode only: there, every such row is the bot's one workspace's.
   */
  adoptRowsWithoutWorkspace(teamId: string): Promise<number>;
  /** Resolves when the database answers within the time; rejects with the reason otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface StoreTransaction {
  readonly audit: AuditLog;
  readonly deletionRequests: DeletionRequests;
  readonly stepCompletions: StepCompletions;
  readonly deletionApprovals: DeletionApprovals;
  readonly bulkJobs: BulkJobs;
  readonly workspaceSettingsRows: WorkspaceSettingsRows;
  readonly mintAccountRows: MintAccountRows;
}

/** How a store uses an SQLite file; both have the app's own values when left out. */
export interface SqliteStoreOptions {
  /** Shared by the stores a test opens on one SQLite file in its process (see SqliteFileTurns); the store's own otherwise. */
  turns?: SqliteFileTurns | undefined;
  /** How long to wait for another process's lock on the file before failing (SQLITE_BUSY_TIMEOUT_MS, 5 s, in the app). */
  busyTimeoutMs?: number | undefined;
}

/** `scrub`: the app's secret scrubber, applied to every value written (see ScrubSecretsPlugin). */
export function openStore(
  location: StoreLocation,
  logger?: Logger,
  scrub?: Scrubber,
  sqlite: SqliteStoreOptions = {},
): Store {
  const db = openDatabase(location, logger, sqlite.turns, sqlite.busyTimeoutMs);
  const changes =
    location.engine === 'postgres' ? new PostgresChangeFeed(location.url, logger) : new InProcessChangeFeed(logger);
  return new SqlStore(location.engine, scrub ? db.withPlugin(new ScrubSecretsPlugin(scrub)) : db, changes, logger);
}

class SqlStore implements Store {
  readonly audit: AuditLog;
  readonly deletionRequests: DeletionRequests;
  readonly homeTabs: HomeTabs;
  readonly onceKeys: OnceKeys;
  readonly stepCompletions: StepCompletions;
  readonly deletionApprovals: DeletionApprovals;
  readonly deletionReminders: DeletionReminders;
  readonly auditLogPages: AuditLogPages;
  readonly history: HistoryRows;
  readonly historyPeople: HistoryPeople;
  readonly historyBackfill: HistoryBackfill;
  readonly bulkJobs: BulkJobs;
  readonly workspaceSettingsRows: WorkspaceSettingsRows;
  readonly installationRows: InstallationRows;
  readonly mintAccountRows: MintAccountRows;
  readonly mintCallOutcomes: MintCallOutcomeRows;

  constructor(
    readonly engine: StoreLocation['engine'],
    private readonly db: Kysely<Tables>,
    readonly changes: ChangeFeed,
    private readonly logger?: Logger,
  ) {
    this.audit = new AuditLog(db);
    this.deletionRequests = new DeletionRequests(db, engine);
    this.homeTabs = new HomeTabs(db);
    this.onceKeys = new OnceKeys(db, engine);
    this.stepCompletions = new StepCompletions(db, engine);
    this.deletionApprovals = new DeletionApprovals(db, engine);
    this.deletionReminders = new DeletionReminders(db, engine);
    this.auditLogPages = new AuditLogPages(db);
    this.history = new HistoryRows(db, engine);
    this.historyPeople = new HistoryPeople(db);
    this.historyBackfill = new HistoryBackfill(db, engine);
    this.bulkJobs = new BulkJobs(db, engine, changes);
    this.workspaceSettingsRows = new WorkspaceSettingsRows(db, engine, changes);
    this.installationRows = new InstallationRows(db, engine, changes);
    this.mintAccountRows = new MintAccountRows(db, engine, changes);
    this.mintCallOutcomes = new MintCallOutcomeRows(db);
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) =>
      work({
        audit: new AuditLog(trx),
        deletionRequests: new DeletionRequests(trx, this.engine),
        stepCompletions: new StepCompletions(trx, this.engine),
        deletionApprovals: new DeletionApprovals(trx, this.engine),
        bulkJobs: new BulkJobs(trx, this.engine, this.changes),
        workspaceSettingsRows: new WorkspaceSettingsRows(trx, this.engine, this.changes),
        mintAccountRows: new MintAccountRows(trx, this.engine, this.changes),
      }),
    );
  }

  private async migrator(): Promise<Migrator> {
    // Kysely otherwise takes migration tables found in any schema for its own: pin them to ours.
    const schema =
      this.engine === 'postgres'
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(this.db)).rows[0]?.schema
        : undefined;
    return new Migrator({
      db: this.db,
      provider: migrationProvider,
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
  }

  async migrationState(): Promise<{ applied: string[]; pending: string[] }> {
    const migrations = await (await this.migrator()).getMigrations();
    return {
      applied: migrations.filter((m) => m.executedAt !== undefined).map((m) => m.name),
      pending: migrations.filter((m) => m.executedAt === undefined).map((m) => m.name),
    };
  }

  async migrate(): Promise<void> {
    const { error, results } = await (await this.migrator()).migrateToLatest();
    for (const result of results ?? []) {
      if (result.status === 'Success') this.logger?.info({ migration: result.migrationName }, 'migration applied');
      if (result.status === 'Error') this.logger?.error({ migration: result.migrationName }, 'migration failed');
    }
    if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  }

  async adoptRowsWithoutWorkspace(teamId: string): Promise<number> {
    let adopted = 0;
    for (const table of ['deletion_requests', 'bulk_jobs', 'audit_log', 'once_keys'] as const) {
      const result = await this.db
        .updateTable(table)
        .set({ team_id: teamId })
        .where('team_id', 'is', null)
        .executeTakeFirst();
      adopted += Number(result.numUpdatedRows);
      // Entries without a workspace were passed over by History's copy of the audit log (a History row needs its
      // workspace): once they have one, the copy starts over (it skips what History already holds).
      if (table === 'audit_log' && result.numUpdatedRows > 0n) await this.db.deleteFrom('history_backfill').execute();
    }
    // Home tabs are keyed by workspace and user: a user with a Home in the workspace already keeps that one.
    const homes = await this.db
      .updateTable('home_tabs')
      .set({ team_id: teamId })
      .where('team_id', '=', '')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('home_tabs as known')
              .select('known.user_id')
              .where('known.team_id', '=', teamId)
              .whereRef('known.user_id', '=', 'home_tabs.user_id'),
          ),
        ),
      )
      .executeTakeFirst();
    await this.db.deleteFrom('home_tabs').where('team_id', '=', '').execute();
    return adopted + Number(homes.numUpdatedRows);
  }

  async ping(timeoutMs = 2_000): Promise<void> {
    await withDeadline(sql`select 1`.execute(this.db), timeoutMs);
  }

  async close(): Promise<void> {
    await this.changes.close();
    await this.db.destroy();
  }
}
