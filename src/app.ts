import type { InstallationStore } from '@slack/bolt';
import { Approvers } from './tenancy/workspaces/approvers.js';
import * as bulk from './capabilities/bulk/register.js';
import { CommandRegistry } from './platform/slack/commands/command-registry.js';
import { registerMintlinkCommand } from './platform/slack/commands/mintlink-command.js';
import * as auditExport from './capabilities/audit-export/register.js';
import * as deletions from './capabilities/deletions/register.js';
import type { AppDeps, BackgroundWork, CapabilityDeps, CapabilityStore } from './deps.js';
import type { TestSeams } from './test-seams.js';
import { changeFeedCatchUpJob } from './platform/changes/catch-up-job.js';
import { onceKeysPruneJob } from './platform/store/once-keys.js';
import { type Job, Scheduler } from './platform/ops/lifecycle/scheduler.js';
import * as history from './capabilities/history/register.js';
import * as home from './capabilities/home/register.js';
import * as links from './capabilities/links/register.js';
import { openPipeline } from './platform/slack/pipeline/listen.js';
import { HomePublisher } from './platform/slack/app-home/home-publisher.js';
import type { Store } from './platform/store/store.js';
import { type BoltTransport, boltApp } from './platform/slack/bolt-app.js';
import { patientSlackClient } from './platform/slack/web-api/patient-client.js';
import * as templates from './capabilities/templates/register.js';
import * as wallets from './capabilities/wallets/register.js';
import * as settings from './capabilities/settings/register.js';
import * as uninstall from './tenancy/installations/uninstall.js';
import { WorkspaceSettingsSource } from './tenancy/workspaces/workspace-settings.js';
import { createWorkspaces } from './tenancy/workspaces/workspaces.js';
import { MintAccounts } from './tenancy/mint-accounts/mint-accounts.js';
import { SettingsAdmins } from './tenancy/workspaces/settings-admins.js';
import { OfferedDecisions } from './platform/blocks/offered-decisions.js';
import * as mintAccount from './capabilities/mint-account/register.js';
import * as setupChecklist from './capabilities/setup-checklist/register.js';

/** The Bolt app and its transport (start, stop), and what runs around the requests. */
export interface MintlinkApp extends Omit<BoltTransport, 'installs'> {
  /** Distribution mode: where Bolt's OAuth flow stores each installation (undefined with one bot token). */
  installations: InstallationStore | undefined;
  /** Reads what requests need before the first one comes: the workspaces' settings, old rows' workspace (never throws). */
  prepare: () => Promise<void>;
  /** Starts the capabilities' periodic work; returns a function that stops it. */
  startBackgroundWork: () => () => Promise<void>;
}

/**
 * The Bolt app: Socket Mode when an app token is configured, else HTTP on /slack/events. Wiring only: of each
 * capability it knows only `register`; each of the test's `seams` (none from main()) goes to the one part that uses
 * it, never into what capabilities are given as a seam (a test's quicker bulk pace is in the config, merged by
 * start-mintlink.ts; its reminders' clock becomes `remindersAheadMs`). Every capability is registered alike, with
 * the same deps; their `home` is the platform's App Home publisher, which the home capability gives its screen.
 */
export function createApp(deps: AppDeps, seams: TestSeams = {}): MintlinkApp {
  const { config } = deps;
  const { app, start, stop, installs } = boltApp(deps, seams.slack);

  // The process's periodic work, all on one scheduler; the rest of the background work beside it.
  const scheduler = new Scheduler(Math.random, seams.quickenedJobs);
  const background: BackgroundWork[] = [];
  const schedule = (job: Job | undefined) => void (job && scheduler.schedule(job));
  const workspaceSettings = new WorkspaceSettingsSource(config, deps.store, app.client, deps.logger);
  schedule(workspaceSettings.retryJob());
  schedule(changeFeedCatchUpJob(deps.store.changes, deps.logger));
  schedule(onceKeysPruneJob(deps.store.onceKeys, deps.logger));
  const patientClientFor = (token?: string) => patientSlackClient(deps, deps.logger, token);
  const workspaces = createWorkspaces(installs, patientClientFor, deps.store, deps.logger);
  schedule(workspaces.adoptingJob(() => workspaceSettings.homeTeamId));
  schedule(workspaces.orgWorkspacesJob());
  const slack = (team: string | undefined) => workspaces.slack(team);
  const mintAccounts = new MintAccounts(deps, seams.resolveHost ? { resolveHost: seams.resolveHost } : {});
  const store = capabilityStore(deps.store);
  const homeTab = new HomePublisher({ homeTabs: deps.store.homeTabs, slack, work: deps.work, logger: deps.logger });
  const approvers = new Approvers((team) => workspaceSettings.current(team).values.approvers, slack, deps.logger);
  const capabilityDeps = {
    ...deps,
    store,
    workspaces,
    mintAccounts,
    commands: new CommandRegistry(),
    settings: workspaceSettings,
    approvers,
    settingsAdmins: new SettingsAdmins(workspaceSettings, approvers, slack, deps.logger),
    home: homeTab,
    decisions: new OfferedDecisions(),
    background: { schedule, add: (work) => background.push(work) },
    remindersAheadMs: seams.remindersAheadMs ?? (() => config.testClockOffsetHours * 3_600_000),
  } satisfies CapabilityDeps;
  const all = [
    links,
    wallets,
    bulk,
    templates,
    deletions,
    auditExport,
    history,
    settings,
    mintAccount,
    setupChecklist,
    uninstall,
    home,
  ];
  // The wiring opens the request pipeline before any capability listens: it reads the installations, which no
  // capability's store holds, and the app's own workspace.
  const on = openPipeline(app, { ...deps, homeTeam: () => workspaceSettings.homeTeamId });
  for (const capability of all) capability.register(app, capabilityDeps);
  registerMintlinkCommand(on, capabilityDeps.commands, deps);

  return {
    app,
    start,
    stop,
    installations: installs?.installations,
    prepare: async () => {
      await workspaceSettings.refresh().catch(() => undefined); // the poll tries again
      await workspaces.prepare(workspaceSettings.homeTeamId);
    },
    startBackgroundWork: () => {
      scheduler.start();
      const stops = background.map((begin) => begin());
      return async () => void (await Promise.all([scheduler.stop(), ...stops.map((stop) => stop())]));
    },
  };
}

/**
 * The store a capability is given: only what CapabilityStore names, taken from the store into an object of its own
 * (frozen): tenancy's rows and what only the wiring does (migrating, closing, announcing changes) are not members of
 * it while the app runs, not only in the types. A transaction gives the same narrowed view. It keeps mistakes out, not
 * code bent on getting round it (code in the process can import the store): reading a repository's private database
 * handle by name (`audit['db']`) is refused by lint (eslint.config.js, dot-notation).
 */
export function capabilityStore(store: Store): CapabilityStore {
  return Object.freeze({
    engine: store.engine,
    audit: store.audit,
    deletionRequests: store.deletionRequests,
    homeTabs: store.homeTabs,
    onceKeys: store.onceKeys,
    stepCompletions: store.stepCompletions,
    deletionApprovals: store.deletionApprovals,
    deletionReminders: store.deletionReminders,
    auditLogPages: store.auditLogPages,
    history: store.history,
    historyPeople: store.historyPeople,
    historyBackfill: store.historyBackfill,
    bulkJobs: store.bulkJobs,
    mintCallOutcomes: store.mintCallOutcomes,
    changes: heardChanges(store),
    migrationState: () => store.migrationState(),
    ping: (timeoutMs?: number) => store.ping(timeoutMs),
    transaction: (work) =>
      store.transaction((tx) =>
        work(
          Object.freeze({
            audit: tx.audit,
            deletionRequests: tx.deletionRequests,
            stepCompletions: tx.stepCompletions,
            deletionApprovals: tx.deletionApprovals,
            bulkJobs: tx.bulkJobs,
          }),
        ),
      ),
  });
}

/** The change feed as a capability hears it: what changed, and when to catch up; announcing and closing stay the store's. */
function heardChanges(store: Store): CapabilityStore['changes'] {
  const { changes } = store;
  return Object.freeze({
    engine: changes.engine,
    on: (topic, changed) => changes.on(topic, changed),
    onCatchUp: (catchUp) => changes.onCatchUp(catchUp),
  });
}
