import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, type Store } from '../../src/store/store.js';
import type { FakeSlack } from './fake-slack.js';
import { freePort } from './free-port.js';
import { slackSignatureHeaders } from './slack-signature.js';
import {
  buttonClick,
  eventCallback,
  formBody,
  globalShortcut,
  slashCommand,
  viewButtonClick,
  viewSubmission,
  type PostedMessage,
  type SlackView,
} from './slack-payloads.js';
import { TEST_USER_ID } from './slack-ids.js';
import { responseUrls, stateValues, type Entry } from './view-state.js';

export const TEST_SIGNING_SECRET = 'test-signing-secret-5e8f2a9c7b';
export const TEST_MINT_API_KEY = 'mint-api-key-SECRET-7d1e9a4f';

/** What `npm start` runs after building: its node arguments, read from package.json (one source of truth). */
export function startArguments(): string[] {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  // `exec node ...`: the shell npm runs the script in gives its place to node, which then gets the signals.
  const [node, ...args] = packageJson.scripts.start.replace(/^exec\s+/, '').split(/\s+/);
  if (node !== 'node') throw new Error('the start script must be `[exec] node ...`');
  return args.map((arg) => (arg.startsWith('dist/') ? fileURLToPath(new URL(`../../${arg}`, import.meta.url)) : arg));
}

export interface AppProcessOptions {
  mode: 'http' | 'socket';
  slack: FakeSlack;
  mintUrl: string;
  /** Extra or overriding variables; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** Resolve once the process exits instead of waiting for it to be ready (for start-up failures). */
  expectExit?: boolean;
  /** Files to create in the working directory first, e.g. `.env`. */
  files?: Record<string, string>;
}

export interface SignOptions {
  secret?: string;
  timestampSec?: number | string;
  /** Replace the signature header (or drop it with null). */
  signature?: string | null;
  /** Slack's retry headers: the same request sent again because the first ack seemed slow. */
  retryNum?: number;
}

export interface CommandResult {
  /** The fields sent, including the response_url and trigger_id. */
  fields: Record<string, string>;
  /** HTTP status of the request (HTTP mode). */
  status: number | undefined;
  /** What the app acknowledged with (HTTP response body or the Socket Mode ack payload). */
  ack: Record<string, unknown> | undefined;
}

/**
 * The real app (`node dist/mintlink.mjs`, what `npm start` runs) in a child process, configured against the fake
 * Slack and a Mint service, in a temporary working directory (so no developer .env is read).
 */
export class AppProcess {
  private output = '';
  private exited: Promise<number | null>;

  private constructor(
    readonly mode: 'http' | 'socket',
    readonly port: number,
    readonly env: Record<string, string>,
    private readonly child: ChildProcess,
    private readonly slack: FakeSlack,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static async start(options: AppProcessOptions): Promise<AppProcess> {
    const port = await freePort();
    const cwd = mkdtempSync(join(tmpdir(), 'mintlink-app-'));
    for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(cwd, name), content);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: options.slack.botToken,
      SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
      SLACK_API_URL: options.slack.apiUrl,
      PORT: String(port),
      MINT_API_BASE_URL: options.mintUrl,
      MINT_API_KEY: TEST_MINT_API_KEY,
      LOG_LEVEL: 'debug', // the most verbose level, so the secret checks cover every log line
      DATABASE_URL: `file:${join(cwd, 'data', 'mintlink.sqlite')}`,
      ...(options.mode === 'socket' ? { SLACK_APP_TOKEN: options.slack.appToken } : {}),
    };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const child = spawn(process.execPath, startArguments(), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const app = new AppProcess(options.mode, port, env, child, options.slack);
    // A test run that is cut off (Ctrl-C, a timeout) must not leave app processes behind.
    const orphanGuard = () => child.kill('SIGKILL');
    process.once('exit', orphanGuard);
    child.once('exit', () => process.off('exit', orphanGuard));
    if (options.expectExit) {
      await app.exited;
      return app;
    }
    await app.waitForLog((line) => line.msg?.startsWith('mintlink started') === true, 15_000);
    if (options.mode === 'socket') await options.slack.socketMode.waitForConnection();
    return app;
  }

  /** Resident memory of the app process now, in MB (Linux). */
  get rssMb(): number {
    return this.statusMb('VmRSS');
  }

  /** The most resident memory the app process has had since it started, in MB (Linux: its high-water mark). */
  get peakRssMb(): number {
    return this.statusMb('VmHWM');
  }

  private statusMb(field: 'VmRSS' | 'VmHWM'): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The app's own database (the same DATABASE_URL), for checking what it recorded. Close it after use. */
  openStore(): Store {
    const url = this.env.DATABASE_URL ?? '';
    return openStore(url.startsWith('file:') ? { engine: 'sqlite', path: url.slice(5) } : { engine: 'postgres', url });
  }

  /** Everything the process wrote to stdout and stderr. */
  get logs(): string {
    return this.output;
  }

  /** The JSON log lines written so far. */
  get logLines(): Array<Record<string, unknown> & { msg?: string; level?: string }> {
    return this.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown> & { msg?: string; level?: string });
  }

  async waitForLog(
    predicate: (line: Record<string, unknown> & { msg?: string }) => boolean,
    timeoutMs = 5_000,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.logLines.some(predicate)) {
      if (this.child.exitCode !== null)
        throw new Error(`app exited (${this.child.exitCode}) before the expected log line:\n${this.output}`);
      if (Date.now() > deadline)
        throw new Error(`expected log line did not appear within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /**
   * Resolves once the app has no work in flight (its `mintlink_work_in_flight` gauge reads 0): every request
   * and background refresh counts there until its last call ends, so this is the signal that whatever the
   * test's requests started has finished (used before checking that something did NOT happen).
   */
  async waitForIdle(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // /metrics is on METRICS_PORT when the app has one, and needs METRICS_TOKEN when it is set.
    const url = `http://127.0.0.1:${this.env.METRICS_PORT ?? this.port}/metrics`;
    const headers: Record<string, string> = this.env.METRICS_TOKEN
      ? { authorization: `Bearer ${this.env.METRICS_TOKEN}` }
      : {};
    for (;;) {
      const metrics = await (await fetch(url, { headers })).text();
      if (/^mintlink_work_in_flight 0$/m.test(metrics)) return;
      if (Date.now() > deadline)
        throw new Error(
          `work still in flight after ${timeoutMs} ms: ${/^mintlink_work_in_flight .*$/m.exec(metrics)?.[0]}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A POST to the app's HTTP port, signed like Slack's (or deliberately not). */
  async postSigned(path: string, body: string, contentType: string, sign: SignOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'content-type': contentType,
      ...slackSignatureHeaders(body, sign.secret ?? TEST_SIGNING_SECRET, sign.timestampSec),
    };
    if (sign.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(sign.retryNum);
      headers['x-slack-retry-reason'] = 'http_timeout';
    }
    if (sign.signature === null) delete headers['x-slack-signature'];
    else if (sign.signature !== undefined) headers['x-slack-signature'] = sign.signature;
    return fetch(`${this.baseUrl}${path}`, { method: 'POST', headers, body });
  }

  /** Sends `/mintlink <text>` the way Slack does in this mode and returns what the app acknowledged. */
  async command(text: string, overrides: Record<string, string> = {}): Promise<CommandResult> {
    const fields = slashCommand(this.slack, text, overrides);
    if (this.mode === 'socket') {
      const ack = await this.slack.socketMode.send('slash_commands', fields);
      return {
        fields,
        status: undefined,
        ack: ack.payload && Object.keys(ack.payload).length > 0 ? ack.payload : undefined,
      };
    }
    const response = await this.postSigned('/slack/events', formBody(fields), 'application/x-www-form-urlencoded');
    const raw = await response.text();
    return { fields, status: response.status, ack: raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined };
  }

  /** Sends a command that opens a modal; resolves with the command, the views.open call and the view. */
  async commandOpeningModal(text: string, overrides: Record<string, string> = {}) {
    const { fields, ack } = await this.command(text, overrides);
    const open = await this.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    return { fields, ack, open, view: this.slack.lastOpenedView() };
  }

  /**
   * Opens a form with `/mintlink text`, submits `entries`, and resolves with Slack's side: the form, the ack,
   * the view the modal shows next (the outcome) and the direct message the app sent the user.
   */
  async submitFormFromCommand(text: string, entries: Record<string, Entry>) {
    const { view } = await this.commandOpeningModal(text);
    const ack = await this.submitView(view, entries);
    const outcome = await this.slack.viewUpdate(view.id);
    const dm = await this.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    return { view, ack, outcome, dm: dm.params };
  }

  /** Sends an interaction payload (block_actions, view_submission, shortcut...) and returns the ack. */
  async interact(payload: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    if (this.mode === 'socket') {
      const ack = await this.slack.socketMode.send('interactive', payload);
      return ack.payload && Object.keys(ack.payload).length > 0 ? ack.payload : undefined;
    }
    const response = await this.postSigned(
      '/slack/events',
      formBody({ payload: JSON.stringify(payload) }),
      'application/x-www-form-urlencoded',
    );
    if (response.status !== 200) throw new Error(`interaction answered ${response.status}: ${await response.text()}`);
    const raw = await response.text();
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
  }

  /**
   * Submits a modal as a user would: the view's inputs keep their initial values unless `entries` sets
   * them. Slack's side of the ack (new view, inline errors) is applied to the fake.
   */
  async submitView(
    view: SlackView,
    entries: Record<string, Entry> = {},
    userId = TEST_USER_ID,
  ): Promise<Record<string, unknown> | undefined> {
    const values = stateValues(view, entries);
    const ack = await this.interact(
      viewSubmission(
        view,
        values,
        userId,
        responseUrls(view, values, () => this.slack.responseUrl()),
      ),
    );
    this.slack.applySubmissionAck(view.id, ack);
    return ack;
  }

  /** Clicks a button of a message; resolves with the click's response_url (where the app answers). */
  async click(message: PostedMessage, actionId: string, userId = TEST_USER_ID): Promise<string> {
    const payload = buttonClick(this.slack, message, actionId, userId);
    await this.interact(payload);
    return payload.response_url as string;
  }

  /** Clicks a button inside a modal; the modal's inputs hold `entries` (or their initial values). */
  async clickInView(
    view: SlackView,
    actionId: string,
    entries: Record<string, Entry> = {},
    userId = TEST_USER_ID,
  ): Promise<void> {
    await this.interact(viewButtonClick(this.slack, view, actionId, stateValues(view, entries), userId));
  }

  /** Clicks a button on a Home tab (`value` picks one of several with the same action). */
  async clickOnHome(home: SlackView, actionId: string, userId: string, value?: string): Promise<void> {
    await this.interact(viewButtonClick(this.slack, home, actionId, {}, userId, value));
  }

  /**
   * Delivers an Events API event, as Slack does in this mode (events are acknowledged at once); `retryNum`
   * marks it as Slack's retry of an earlier delivery (HTTP mode).
   */
  async event(event: Record<string, unknown>, retryNum?: number): Promise<void> {
    const callback = eventCallback(event);
    if (this.mode === 'socket') {
      await this.slack.socketMode.send('events_api', callback);
      return;
    }
    const sign = retryNum === undefined ? {} : { retryNum };
    const response = await this.postSigned('/slack/events', JSON.stringify(callback), 'application/json', sign);
    if (response.status !== 200) throw new Error(`event answered ${response.status}: ${await response.text()}`);
  }

  async shortcut(callbackId: string, userId = TEST_USER_ID): Promise<Record<string, unknown> | undefined> {
    return this.interact(globalShortcut(this.slack, callbackId, userId));
  }

  /** A workflow runs one of the app's custom steps: Slack's function_executed event. Returns the execution id. */
  async runStep(callbackId: string, inputs: Record<string, unknown>): Promise<string> {
    const event = this.slack.stepExecution(callbackId, inputs);
    await this.event(event);
    return String(event.function_execution_id);
  }

  /** Sends a signal and resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill(signal);
    return this.exited;
  }

  get exitCode(): Promise<number | null> {
    return this.exited;
  }
}
