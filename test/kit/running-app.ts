import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/store.js';
import type { FakeSlack } from './fake-slack.js';
import { freePort } from './free-port.js';
import { slackSignatureHeaders } from './slack-signature.js';
import {
  buttonClick,
  eventCallback,
  formBody,
  inTeam,
  globalShortcut,
  slashCommand,
  viewButtonClick,
  viewSubmission,
  type PostedMessage,
  type SlackView,
} from './slack-payloads.js';
import { TEST_TEAM_ID, TEST_USER_ID } from './slack-ids.js';
import { responseUrls, stateValues, type Entry } from './view-state.js';
import type { HostResolver } from '../../src/mint-api/public-address.js';

export const TEST_SIGNING_SECRET = 'test-signing-secret-5e8f2a9c7b';
export const TEST_MINT_API_KEY = 'mint-api-key-SECRET-7d1e9a4f';

export interface AppOptions {
  mode: 'http' | 'socket';
  slack: FakeSlack;
  mintUrl: string;
  /** Extra or overriding variables; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** Resolve once the app ends instead of waiting for it to be ready (for start-up failures). */
  expectExit?: boolean;
  /** Files to create in the working directory first, e.g. `.env` (read by a process only: main() reads it). */
  files?: Record<string, string>;
  /** How the app resolves the hosts of workspaces' own Mint base URLs (in-process only): no test needs DNS. */
  resolveHost?: HostResolver;
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

/** Where an app under test runs: its port, its environment and a working directory of its own. */
export interface AppSetting {
  port: number;
  cwd: string;
  env: Record<string, string>;
}

/**
 * The environment of an app under test: HTTP or Socket Mode against the fake Slack and the Mint service, an
 * SQLite database in a fresh working directory (so no developer .env is read), `options.env` on top.
 */
export async function appSetting(options: AppOptions): Promise<AppSetting> {
  const port = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), 'mintlink-app-'));
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(cwd, name), content);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    TMPDIR: tmpdir(), // the test run's own (test/global-setup.ts): the app's temporary files go with it
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
  return { port, cwd, env };
}

/**
 * The real app as Slack sees it, wherever it runs (a child process: app-process.ts; in the test's own process:
 * in-process-app.ts): requests signed as Slack signs them, or sent over the fake Socket Mode connection, and
 * what the app logged.
 */
export abstract class RunningApp {
  protected output = '';
  /**
   * The workspace requests come from (distribution mode): commands, interactions and events are sent as from
   * it (see inTeam). The test workspace unless a test changes it.
   */
  teamId = TEST_TEAM_ID;

  protected constructor(
    readonly mode: 'http' | 'socket',
    readonly port: number,
    readonly env: Record<string, string>,
    protected readonly slack: FakeSlack,
  ) {}

  /** True once the app has stopped or exited. */
  protected abstract get hasEnded(): boolean;

  /** Stops the app (a process: with this signal) and resolves with its exit code. */
  abstract stop(signal?: NodeJS.Signals): Promise<number | null>;

  /** Resolves with the exit code once the app has ended. */
  abstract get exitCode(): Promise<number | null>;

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The app's own database (the same DATABASE_URL), for checking what it recorded. Close it after use. */
  openStore(): Store {
    const url = this.env.DATABASE_URL ?? '';
    return openStore(url.startsWith('file:') ? { engine: 'sqlite', path: url.slice(5) } : { engine: 'postgres', url });
  }

  /** Everything the app wrote (its log lines; a process's stderr too). */
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
    while (!this.logLines.some((line) => predicate(line))) {
      if (this.hasEnded) throw new Error(`the app ended before the expected log line:\n${this.output}`);
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
    const fields = inTeam(slashCommand(this.slack, text, overrides), this.teamId);
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
  async interact(sent: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const payload = inTeam(sent, this.teamId);
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
    const callback = inTeam(eventCallback(event), this.teamId);
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
}
