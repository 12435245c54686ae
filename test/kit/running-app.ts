import { mkdtempSync, writeFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/platform/store/store.js';
import type { StoreLocation } from '../../src/platform/ops/config/config.js';
import { TEST_PROCESS_SQLITE_TURNS } from './store-engines.js';
import type { FakeSlack } from './fake-slack.js';
import { freePort } from './free-port.js';
import { slackSignatureHeaders } from './slack-signature.js';
import { SlackDriver, type Ack } from './slack-driver.js';
import { formBody } from './slack-payloads.js';

export type { CommandResult } from './slack-driver.js';
import type { HostResolver } from '../../src/platform/mint/public-address.js';

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
  /** The first wait before the app tries its migrations again when the database was down at start (in-process only). */
  migrationRetryFirstWaitMs?: number;
}

export interface SignOptions {
  secret?: string;
  timestampSec?: number | string;
  /** Replace the signature header (or drop it with null). */
  signature?: string | null;
  /** Slack's retry headers: the same request sent again because the first ack seemed slow. */
  retryNum?: number;
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
 * The real app as Slack sees it over the network, wherever it runs (a child process: app-process.ts; in the
 * test's own process: in-process-app.ts): requests signed as Slack signs them, or sent over the fake Socket
 * Mode connection.
 */
export abstract class RunningApp extends SlackDriver {
  protected constructor(
    readonly mode: 'http' | 'socket',
    readonly port: number,
    readonly env: Record<string, string>,
    slack: FakeSlack,
  ) {
    super(slack);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The app's own database (the same DATABASE_URL), for checking what it recorded. Close it after use. */
  openStore(): Store {
    const url = this.env.DATABASE_URL ?? '';
    const location: StoreLocation = url.startsWith('file:')
      ? { engine: 'sqlite', path: url.slice(5) }
      : { engine: 'postgres', url };
    return openStore(location, undefined, undefined, { turns: TEST_PROCESS_SQLITE_TURNS });
  }

  /** Reads the app's `mintlink_work_in_flight` gauge on /metrics until it is 0. */
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

  protected async sendCommand(fields: Record<string, string>): Promise<{ status: number | undefined; ack: Ack }> {
    if (this.mode === 'socket') {
      const ack = await this.slack.socketMode.send('slash_commands', fields);
      return { status: undefined, ack: ack.payload && Object.keys(ack.payload).length > 0 ? ack.payload : undefined };
    }
    const response = await this.postSigned('/slack/events', formBody(fields), 'application/x-www-form-urlencoded');
    const raw = await response.text();
    return { status: response.status, ack: raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined };
  }

  protected async sendInteraction(payload: Record<string, unknown>): Promise<Ack> {
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

  protected async sendEvent(callback: Record<string, unknown>, retryNum?: number): Promise<void> {
    if (this.mode === 'socket') {
      await this.slack.socketMode.send('events_api', callback);
      return;
    }
    const sign = retryNum === undefined ? {} : { retryNum };
    const response = await this.postSigned('/slack/events', JSON.stringify(callback), 'application/json', sign);
    if (response.status !== 200) throw new Error(`event answered ${response.status}: ${await response.text()}`);
  }
}

/**
 * A GET /metrics through a keep-alive agent, whose connection stays open afterwards: a scraper's, which must not
 * hold an app's shutdown.
 */
export function keptAliveGet(agent: Agent, port: number, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/metrics', agent, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
