import type { Job } from './platform/ops/lifecycle/scheduler.js';
/*
 * What the capabilities are given: the app's real parts, nothing a test swaps in (those are test-seams.ts's,
 * which only the wiring reads). Types only, and only from the shared parts (never from a capability or from
 * app.ts), so any capability can depend on this module without an import cycle.
 */
import type { WorkBudget } from './platform/slack/admission/work-budget.js';
import type { Approvers } from './tenancy/workspaces/approvers.js';
import type { CommandRegistry } from './platform/slack/commands/command-registry.js';
import type { Config } from './platform/ops/config/config.js';
import type { Readiness } from './platform/ops/health/readiness.js';
import type { SlackCallHooks } from './platform/slack/web-api/web-client-options.js';
import type { Logger } from './platform/ops/telemetry/create-logger.js';
import type { Scrubber } from './platform/ops/telemetry/secret-scrubber.js';
import type { Metrics } from './platform/ops/telemetry/metrics.js';
import type { MintApiClient } from './platform/mint/mint-api-client.js';
import type { Store, StoreTransaction } from './platform/store/store.js';
import type { ChangeFeed } from './platform/changes/change-feed.js';
import type { WorkspaceSettingsSource } from './tenancy/workspaces/workspace-settings.js';
import type { Workspaces } from './tenancy/workspaces/workspaces.js';
import type { SettingsAdmins } from './tenancy/workspaces/settings-admins.js';
import type { MintAccounts } from './tenancy/mint-accounts/mint-accounts.js';
import type { MintCallRecorder } from './tenancy/mint-accounts/mint-call-recorder.js';
import type { OfferedDecisions } from './platform/blocks/offered-decisions.js';
import type { HomeTab } from './platform/slack/app-home/home-publisher.js';

/** App Home as the capabilities see it, and a capability's part of it: the platform's publisher's. */
export type { HomeEntry, HomeTab } from './platform/slack/app-home/home-publisher.js';

/** The process's shared parts, made once by main(). */
export interface AppDeps {
  config: Config;
  logger: Logger;
  scrub: Scrubber;
  metrics: Metrics;
  store: Store;
  /** The operator's Mint account (MINT_API_KEY): single-workspace mode only. Reach it through `mintAccounts`. */
  mintApi: MintApiClient | undefined;
  readiness: Readiness;
  /** The admission budget: background work is counted in it too. */
  work: WorkBudget;
  /** Keeps how each Mint account's last real call ended, in the database (read by the setup doctor). */
  mintCalls?: MintCallRecorder;
  /**
   * How the app calls Slack: every Slack client it makes (Bolt's, the patient ones, the OAuth flow's) scrubs
   * and counts its calls through these.
   */
  slackCalls: SlackCallHooks;
}

/**
 * Work a capability runs while the app is up that is not a periodic job (the bulk worker's own claim loop,
 * closing what it opened). Returns how to stop it.
 */
export type BackgroundWork = () => () => Promise<void>;

/** Tenancy's rows: a capability reaches them through `workspaces`, `mintAccounts` and `settings`. */
type TenancyRows = 'installationRows' | 'mintAccountRows' | 'workspaceSettingsRows';

/**
 * The store as a capability sees it: the capabilities' repositories and the shared ones (the audit log, once-keys),
 * in and out of a transaction, without tenancy's rows or what only the wiring does (migrating, closing). The
 * wiring gives each capability an object holding only these (app.ts, capabilityStore), not the store itself.
 */
export type CapabilityStore = Omit<
  Store,
  TenancyRows | 'transaction' | 'migrate' | 'adoptRowsWithoutWorkspace' | 'close' | 'changes'
> & {
  transaction<T>(work: (tx: Omit<StoreTransaction, TenancyRows>) => Promise<T>): Promise<T>;
  /** Changes are heard, not announced (a repository announces its own writes) nor closed, by a capability. */
  changes: Pick<ChangeFeed, 'engine' | 'on' | 'onCatchUp'>;
};

/** What each capability's `register(app, deps)` receives. */
export interface CapabilityDeps extends Omit<AppDeps, 'store'> {
  store: CapabilityStore;
  /** `/mintlink` subcommands: a capability registers its own. */
  commands: CommandRegistry;
  /**
   * The settings in force per workspace (approvers, approval channel, quorum, expiry, reminders, audit
   * viewers, bulk concurrency): the environment's, or what admins set in Slack. Read them where they are used,
   * each time: they change while the app runs.
   */
  settings: WorkspaceSettingsSource;
  /** Who may approve deletions and control others' bulk jobs (the settings' approvers): one cache of group members. */
  approvers: Approvers;
  /**
   * Who may change a workspace's settings and its Mint account: SETTINGS_ADMINS, the admins set in Slack, and
   * the workspace's admins and owners. One cache of users.info answers.
   */
  settingsAdmins: SettingsAdmins;
  home: HomeTab;
  /**
   * Decisions offered on another capability's view: the deletions capability provides a pending request's
   * Approve / Reject for a person; History's Details asks for them and is shown again after the decision.
   */
  decisions: OfferedDecisions;
  /**
   * The workspaces the app serves: a workspace's own bot client for work no request carries (background
   * work, posts after the request), and what each capability does when a workspace removes the app.
   */
  workspaces: Workspaces;
  /** Each workspace's Mint account: `forTeam(teamId)` gives its client (the env's key in single-workspace mode). */
  mintAccounts: MintAccounts;
  /**
   * Starts with the app, stops on shutdown: `schedule` a periodic job, run by the process's one scheduler
   * (named, at its period with jitter); `add` other work.
   */
  background: { schedule(job: Job | undefined): void; add(work: BackgroundWork): void };
  /**
   * How far ahead of the database's clock the deletion reminders judge what is due, read at each sweep: in the
   * app TEST_CLOCK_OFFSET_HOURS, fixed (0 unless a test process sets it). A test moving time on in the app it runs
   * (TestSeams.remindersAheadMs) is merged in by the wiring, so the deletions capability never sees a seam.
   */
  remindersAheadMs: () => number;
}
