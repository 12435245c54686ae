import { Writable } from 'node:stream';
import type { App, InstallationStore, Receiver, ReceiverEvent } from '@slack/bolt';
import { configSecrets } from '../../src/platform/ops/config/config.js';
import { loadConfig } from '../../src/platform/ops/config/load-config.js';
import { createLogger } from '../../src/platform/ops/telemetry/create-logger.js';
import { createSecretScrubber } from '../../src/platform/ops/telemetry/secret-scrubber.js';
import { startMintlink, type RunningMintlink } from '../../src/start-mintlink.js';
import type { Store } from '../../src/platform/store/store.js';
import type { BulkPace } from '../../src/platform/ops/config/config.js';
import type { MintCircuitOptions } from '../../src/platform/mint/circuit.js';
import type { HostResolver } from '../../src/platform/mint/public-address.js';
import type { FakeSlack } from './fake-slack.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from './running-app.js';
import { TEST_PROCESS_SQLITE_TURNS } from './store-engines.js';
import { SlackDriver, type Ack } from './slack-driver.js';

export interface ListenerAppOptions {
  slack: FakeSlack;
  mintUrl: string;
  /** Extra or overriding variables; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** The bulk jobs' pace, quickened so that a test of a job's progress need not wait the app's 2 s gaps. */
  bulkPace?: Partial<BulkPace>;
  /** How long the Mint client's circuit stays open once a run of outages opened it (10 s in the app). */
  mintBreaker?: Partial<MintCircuitOptions>;
  /** How the app resolves the hosts of workspaces' own Mint base URLs: no test needs DNS. */
  resolveHost?: HostResolver;
  /** How long a Slack call may take before the app gives it up (10 s in the app): tests of a late Slack shorten it. */
  slackCallDeadlineMs?: number;
  /**
   * The first wait before the app tries a failed Slack call again (200 ms in the app, 1 s for its background
   * posts): tests of a Slack that fails calls shorten it.
   */
  slackRetryWaitMs?: number;
  /**
   * How far ahead of the database's clock the deletion reminders judge what is due, read at each sweep: a test
   * moves time on in the running app (TEST_CLOCK_OFFSET_HOURS, fixed for the app's life, otherwise).
   */
  remindersAheadMs?: () => number;
  /** How long the download of an attached file may take (15 s in the app): a test of a download never finished shortens it. */
  fileDownloadDeadlineMs?: number;
  /** Periods of background jobs by name, over QUICK_JOBS (a name the app has no job for fails the start). */
  quickenedJobs?: Record<string, number>;
}

/**
 * The deletion sweeps run every 100 ms here, not every few seconds as in the app (their period follows
 * MINT_API_TIMEOUT_MS): a test of an expiry, a reminder or a step completed late sees it within a tick.
 */
const QUICK_JOBS: Record<string, number> = {
  'deletion sweeper': 100,
  'deletion reminders': 100,
  'workflow step completions': 100,
};

/**
 * Hands Slack's payloads to Bolt in the test's own process, the way Bolt's own tests feed an App: no HTTP, no
 * signature, no Socket Mode (those are the end-to-end tests'). A delivery resolves with the ack as soon as the
 * listener acks, as Slack gets it, while the listener goes on; every delivery is kept until it has ended.
 */
class PayloadReceiver implements Receiver {
  /** The Bolt App the app started (set by Bolt when the App is made). */
  app: App | undefined;
  /** Deliveries whose listeners have not finished yet. */
  readonly running = new Set<Promise<void>>();
  /** What the app threw out of Bolt after acking (Bolt's error handler logs listener failures itself). */
  readonly escaped: unknown[] = [];

  init(app: App): void {
    this.app = app;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  async deliver(body: Record<string, unknown>, retry?: { num: number; reason: string }): Promise<Ack> {
    const app = this.app;
    if (!app) throw new Error('the app is not started');
    let acked = false;
    let markAcked: (response: unknown) => void = () => undefined;
    const ack = new Promise<unknown>((resolve) => (markAcked = resolve));
    const event: ReceiverEvent = {
      body,
      ack: (response?: unknown) => {
        if (acked) throw new Error('acknowledged twice');
        acked = true;
        markAcked(response);
        return Promise.resolve();
      },
      ...(retry ? { retryNum: retry.num, retryReason: retry.reason } : {}),
    };
    let failure: { error: unknown } | undefined;
    const processing = app.processEvent(event).catch((error: unknown) => {
      if (acked) this.escaped.push(error);
      else failure = { error };
    });
    this.running.add(processing);
    void processing.finally(() => this.running.delete(processing));
    await Promise.race([ack, processing]);
    if (failure) throw failure.error;
    if (!acked) throw new Error(`never acknowledged: ${JSON.stringify(body).slice(0, 200)}`);
    return ackBody(await ack);
  }
}

/** What Slack gets from an ack, as a test reads it: the object acked, or nothing for an empty ack. */
function ackBody(response: unknown): Ack {
  if (response === undefined || response === '') return undefined;
  if (typeof response === 'string') return { text: response };
  if (typeof response !== 'object' || response === null)
    throw new Error(`an ack Slack cannot read: ${typeof response}`);
  const body = { ...response };
  return Object.keys(body).length > 0 ? body : undefined;
}

/**
 * The fast tier of the listener tests: the real app (start-mintlink.ts, the real App and every capability's
 * real registration, the work budget, the request pipeline, the Mint client) in the test's own process, fed by
 * Bolt's receiver interface instead of HTTP or Socket Mode, with the fake Slack for the Web API and
 * response_urls (its rules: Block Kit limits, triggers that expire, channel errors) and the mock Mint service,
 * and an in-memory SQLite database. Nothing is built first and nothing listens for Slack: a file runs in
 * milliseconds. What only the transport does (signatures, the HTTP screen, Socket Mode envelopes, retries'
 * headers) is the end-to-end tests' (InProcessApp, AppProcess), one per capability and transport.
 */
export class ListenerApp extends SlackDriver {
  private ended = false;
  private running: RunningMintlink | undefined;
  private readonly receiver = new PayloadReceiver();

  private constructor(
    readonly env: Record<string, string>,
    slack: FakeSlack,
  ) {
    super(slack);
  }

  static async start(options: ListenerAppOptions): Promise<ListenerApp> {
    const env: Record<string, string> = {
      SLACK_BOT_TOKEN: options.slack.botToken,
      SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
      SLACK_API_URL: options.slack.apiUrl,
      MINT_API_BASE_URL: options.mintUrl,
      MINT_API_KEY: TEST_MINT_API_KEY,
      LOG_LEVEL: 'debug', // the most verbose level, so the secret checks cover every log line
      DATABASE_URL: 'file::memory:',
    };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const app = new ListenerApp(env, options.slack);
    const loaded = loadConfig(env);
    if (!loaded.ok) throw new Error(loaded.message);
    const scrub = createSecretScrubber(configSecrets(loaded.config));
    const logs = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        app.output += chunk.toString('utf8');
        done();
      },
    });
    const logger = createLogger({ level: loaded.config.logLevel, scrub, pretty: false, destination: logs });
    const outcome = await startMintlink(loaded.config, logger, scrub, {
      slack: {
        receiver: app.receiver,
        fetch: options.slack.fetch,
        ...(options.slackCallDeadlineMs ? { callDeadlineMs: options.slackCallDeadlineMs } : {}),
        ...(options.slackRetryWaitMs === undefined ? {} : { retryWaitMs: options.slackRetryWaitMs }),
        ...(options.fileDownloadDeadlineMs ? { downloadDeadlineMs: options.fileDownloadDeadlineMs } : {}),
      },
      // The retries' waits are the Mint client's own tests' concern; here they would only cost time.
      mintRetryBaseDelayMs: 5,
      ...(options.bulkPace ? { bulkPace: options.bulkPace } : {}),
      ...(options.mintBreaker ? { mintBreaker: options.mintBreaker } : {}),
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
      ...(options.remindersAheadMs ? { remindersAheadMs: options.remindersAheadMs } : {}),
      quickenedJobs: { ...QUICK_JOBS, ...options.quickenedJobs },
      // Replicas started in this process on one SQLite file take turns on it rather than block the event loop.
      sqliteTurns: TEST_PROCESS_SQLITE_TURNS,
    });
    if (!outcome.ok) throw new Error(`the app did not start: ${outcome.reason}`);
    app.running = outcome.app;
    return app;
  }

  /**
   * The app's own database, for checking what it recorded: in memory, only the app's connection sees it, so
   * this is that connection, whose close() leaves it open (the tests written for RunningApp close what they open).
   */
  openStore(): Store {
    if (!this.running) throw new Error('the app is not started');
    const store: Store = Object.create(this.running.store, { close: { value: () => Promise.resolve() } });
    return store;
  }

  /** The Bolt App itself, for checks of what was registered on it (test/lint/declarations.test.ts). */
  get boltApp(): App {
    if (!this.receiver.app) throw new Error('the app is not started');
    return this.receiver.app;
  }

  /**
   * Distribution mode: the app's installation store, where Bolt's OAuth flow stores each workspace's
   * installation (test/kit/listener-installs.ts stores them as it does).
   */
  get installations(): InstallationStore {
    const installations = this.running?.installations;
    if (!installations) throw new Error('the app is not started in distribution mode (DISTRIBUTION_ENV)');
    return installations;
  }

  /**
   * Delivers an Events API body as Slack sent it (its envelope too: uninstalls, org-wide installations' events);
   * `retryNum` marks it as Slack's retry of an earlier delivery.
   */
  async deliverEvent(body: Record<string, unknown>, retryNum?: number): Promise<void> {
    await this.sendEvent(body, retryNum);
  }

  protected get hasEnded(): boolean {
    return this.ended;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.ended) {
      this.ended = true;
      await this.running?.stop({ signal });
    }
    const [escaped] = this.receiver.escaped;
    if (escaped) throw new Error('a request failed out of Bolt after its ack', { cause: escaped });
    return 0;
  }

  get exitCode(): Promise<number | null> {
    return Promise.resolve(this.ended ? 0 : null);
  }

  /** The requests and background work in flight now, as the app counts them (what its shutdown waits for). */
  workInFlight(): number {
    if (!this.running) throw new Error('the app is not started');
    return this.running.workInFlight();
  }

  /** Waits for every delivery's listener to end and for the work budget to be empty. */
  async waitForIdle(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await Promise.all(this.receiver.running);
      if (this.running?.workInFlight() === 0 && this.receiver.running.size === 0) return;
      if (Date.now() > deadline) throw new Error(`work still in flight after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  protected async sendCommand(fields: Record<string, string>): Promise<{ status: number | undefined; ack: Ack }> {
    return { status: undefined, ack: await this.receiver.deliver(fields) };
  }

  protected sendInteraction(payload: Record<string, unknown>): Promise<Ack> {
    return this.receiver.deliver(payload);
  }

  protected async sendEvent(callback: Record<string, unknown>, retryNum?: number): Promise<void> {
    await this.receiver.deliver(
      callback,
      retryNum === undefined ? undefined : { num: retryNum, reason: 'http_timeout' },
    );
  }
}
