import { MockMintService } from '../../src/operator/mock-mint-api/mock-mint-service.js';
import {
  AppPortTakenError,
  launchApp,
  launchOnAnotherPort,
  planApp,
  releasePorts,
  type AppPlan,
  type Launch,
} from './app-child.js';
import { FakeSlack } from './fake-slack.js';
import { Interactions } from './interactions.js';
import { readManifestFacts } from './manifest-facts.js';
import { PageServer } from './page-server.js';
import { GENERAL, USER_GROUPS, WORKSPACE_URL } from './people.js';
import { AppLink } from './to-app.js';
import { Workspace } from './workspace.js';

/*
 * The sandbox: the app (the built bundle, in HTTP mode, SQLite in the sandbox's data directory), the mock
 * Mint service with its demo templates, the Slack stand-in, and the page, all on loopback. Everything it
 * hands the app is made up here: the tokens, the signing secret and the Mint API key are random for each
 * start and never leave this machine.
 */

export interface SandboxOptions {
  /** Port of the page; 0 picks a free one. */
  port: number;
  host: string;
  /** Where the app keeps its SQLite database and its log; emptied at start, locked while the sandbox runs. */
  dataDir: string;
  /** Latency of the mock Mint service (its default is none). */
  mintLatencyMs?: number;
  /** Rows a History page examines at most (the app's HISTORY_SCAN_ROWS; the app's default when not given). */
  historyScanRows?: number;
  /**
   * The least milliseconds between two updates of a bulk job's progress message (the app's TEST_BULK_PACE_MS;
   * the app's own pace, 2 s, when not given): a test quickens it rather than wait.
   */
  bulkPaceMs?: number;
  /** Where a line goes for each request the sandbox refuses or fails (standard error by default). */
  log?: (line: string) => void;
}

export interface Sandbox {
  url: string;
  mint: MockMintService;
  slack: FakeSlack;
  workspace: Workspace;
  appPid: number;
  /** The app's own port (HTTP mode, on 127.0.0.1 only). */
  appPort: number;
  stop(): Promise<void>;
}

/** Raised when the page's port is taken: the message is one line saying which port and what to do. */
export class PortInUseError extends Error {}

/** An app already launched by `npm run sandbox` before it loaded the rest of the sandbox (see main.ts). */
export interface EarlyApp {
  plan: AppPlan;
  launch: Launch;
}

export async function startSandbox(options: SandboxOptions, early?: EarlyApp): Promise<Sandbox> {
  const manifest = readManifestFacts();
  const plan =
    early?.plan ??
    (await planApp(options.dataDir, { historyScanRows: options.historyScanRows, bulkPaceMs: options.bulkPaceMs }));
  let launch = early?.launch;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const slack = new FakeSlack({ log });
  slack.botToken = plan.botToken;
  slack.workspaceUrl = WORKSPACE_URL;
  for (const group of USER_GROUPS) {
    slack.userGroups.set(group.id, [...group.members]);
    slack.userGroupNames.set(group.id, { handle: group.handle, name: group.name });
  }
  const workspace = new Workspace(slack);
  const link = new AppLink(() => `http://127.0.0.1:${plan.appPort}/slack/events`, plan.signingSecret);
  const interactions = new Interactions(workspace, slack, link, manifest);
  const page = new PageServer({ workspace, slack, interactions, manifest, log });
  const mint = new MockMintService({
    apiKey: plan.mintKey,
    ...(options.mintLatencyMs !== undefined ? { latencyMs: options.mintLatencyMs } : {}),
  });
  try {
    await listenOrExplain(page, options);
    plan.held.slack.release();
    await slack.start(plan.slackPort);
    plan.held.mint.release();
    await mint.listen(plan.mintPort, '127.0.0.1');
    seedWorkspace(workspace, mint);
    launch ??= launchApp(plan);
    for (let relaunches = 0; ; relaunches += 1) {
      try {
        await launch.started;
        break;
      } catch (error) {
        if (relaunches === 2) throw error;
        // Its port given to another process before it listened: on another one.
        if (error instanceof AppPortTakenError) launch = await launchOnAnotherPort(plan);
        // Launched early, the app may have made its first Slack call before the stand-in listened: once more.
        else if (early && relaunches === 0) launch = launchApp(plan);
        else throw error;
      }
    }
  } catch (error) {
    await Promise.allSettled([launch?.child.stop(), page.close(), slack.stop(), mint.close()]);
    releasePorts(plan);
    plan.lock.release();
    throw error;
  }
  plan.lock.noteUrl(page.url);
  const app = launch.child;
  let stopped: Promise<void> | undefined;
  return {
    url: page.url,
    mint,
    slack,
    workspace,
    appPid: app.pid,
    appPort: plan.appPort,
    stop: () =>
      (stopped ??= (async () => {
        await app.stop();
        await Promise.allSettled([page.close(), slack.stop(), mint.close()]);
        plan.lock.release();
      })()),
  };
}

/** The page's port taken: one line saying which, and how to choose another. */
async function listenOrExplain(page: PageServer, options: SandboxOptions): Promise<void> {
  try {
    await page.listen(options.port, options.host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new PortInUseError(
        `Port ${options.port} on ${options.host} is already in use: start the sandbox on another port, e.g. SANDBOX_PORT=${options.port + 1} npm run sandbox`,
      );
    throw error;
  }
}

/** A little history, so the page does not open on empty channels: messages to try the message shortcut on. */
function seedWorkspace(workspace: Workspace, mint: MockMintService): void {
  for (const id of ['cus_1001', 'cus_1002', 'cus_1003', 'cus_2001', 'cus_2002']) mint.customers.add(id);
  workspace.post({
    channel: GENERAL.id,
    from: 'U0CHLOE01',
    text: 'Welcome to the Mintlink sandbox! Type `/mintlink help` below, or open the ⚡ menu for the shortcuts.',
  });
  workspace.post({
    channel: GENERAL.id,
    from: 'U0EVE0001',
    text: 'Support ticket #4411: customers `cus_1001` and `cus_1002` asked us to close their accounts.',
  });
}
