import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo, Socket } from 'node:net';
import { messageProblems, viewProblems } from './block-kit-limits.js';
import { FakeSocketMode } from './fake-socket-mode.js';
import { TEST_BOT_ID, TEST_BOT_USER_ID, TEST_TEAM_ID, TEST_USER_ID } from './slack-ids.js';
import { asText } from './as-text.js';
import { CHANNELS, PEOPLE } from './people.js';
import { addressedToLoopback, notLoopbackRefusal } from './loopback-host.js';

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** The token the call carried. */
  token: string | undefined;
  at: number;
  /** What the fake answered (its Slack body). */
  answer?: Record<string, unknown>;
}

export interface RecordedResponse {
  /** Id of the response_url it was posted to. */
  id: string;
  body: Record<string, unknown>;
  at: number;
}

/**
 * What reached the fake while `benchTracking` is on, for a load generator in another process: a views.open
 * (id = its trigger_id), a post to a response_url (id = the URL's last segment; `in_channel` when it was
 * posted for the whole conversation), or a post to a silent response_url (held open, never answered).
 * `at` is wall-clock milliseconds with a fraction (performance.timeOrigin + performance.now()).
 */
export interface BenchArrival {
  kind: 'views.open' | 'in_channel' | 'response' | 'silent';
  id: string;
  at: number;
}

/** A custom step's execution as Slack keeps it: started by a workflow, ended once by the app. */
export interface StepExecution {
  id: string;
  callbackId: string;
  token: string;
  state: 'running' | 'completed' | 'failed';
  outputs?: Record<string, unknown>;
  error?: string;
  /** The token the ending call carried. */
  endedWith?: string;
}

/**
 * A canned answer for the next call(s) of a method: an HTTP status and/or a Slack body. With only `delayMs`,
 * the call is answered as usual (and takes effect, a message is posted), only late: Slack being slow.
 */
export interface CannedAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer only once this settles: Slack holding the call until the test lets it go (no guess at a delay). */
  until?: Promise<unknown>;
}

/** A file the app uploaded (files.getUploadURLExternal, the POST of its bytes, files.completeUploadExternal). */
export interface UploadedFile {
  fileId: string;
  filename: string;
  /** The length announced to files.getUploadURLExternal. */
  length: number;
  /** The bytes POSTed to the upload_url (undefined until they arrive). */
  content?: Buffer;
  /** Set by files.completeUploadExternal. */
  completed?: { channelId: string; title?: string; initialComment?: string; threadTs?: string; at: number };
}

/** A file a user shared with the app (a file_input's value), served behind `url_private_download`. */
export interface HostedFile {
  content: Buffer;
  name: string;
  /** The size Slack reports (the content's length unless a test says otherwise). */
  size: number;
  mimetype: string;
  filetype: string;
}

/**
 * What reached the stand-in, for a watcher that shows it (the sandbox's page): a Web API call with the answer
 * it got, or a post to a response_url with the HTTP status it got (and what Slack would refuse in it).
 */
export type SlackTraffic =
  | { kind: 'call'; call: RecordedCall }
  | { kind: 'response'; id: string; body: Record<string, unknown>; status: number; problems: string[] };

export const TRIGGER_TTL_MS = 3_000;

/** What the stand-in reads of a request: Node's, or one handed over in the same process (`fetch`). */
type SlackRequest = Pick<IncomingMessage, 'url' | 'method' | 'headers'> & AsyncIterable<Buffer> & { resume(): unknown };

/** What it writes of its answer: Node's response, or one read back in the same process (`fetch`). */
interface SlackResponse {
  writeHead(status: number, headers?: Record<string, string>): SlackResponse;
  end(body?: string | Buffer): unknown;
  once(event: 'close', listener: () => void): unknown;
}

export interface FakeSlackOptions {
  /** Where a line goes for each request refused as malformed or failed (standard error by default). */
  log?: (line: string) => void;
  /**
   * For tests only: Socket Mode (the WebSocket at /socket and apps.connections.open), response URLs that never
   * answer (/silent/…) and, with `benchTracking`, the load generator's /__bench/ routes. Off, as in
   * `npm run sandbox`, none of them is served.
   */
  testHooks?: boolean;
  /** How many of each kind of record (calls, response_url posts, messages, views…) are kept; the oldest go. */
  maxRecords?: number;
}

const MAX_RECORDS = 20_000;

/** Who installs the app next through the fake's consent screen, and how. */
export interface FakeInstall {
  teamId: string;
  teamName: string;
  /** For an Enterprise Grid workspace, or an org-wide install. */
  enterprise?: { id: string; name: string };
  /** An org-wide install: the answer has `team: null` and `is_enterprise_install: true`. */
  orgWide?: boolean;
  userId: string;
  /** The person clicks Cancel instead of Allow: Slack redirects with `error=access_denied`. */
  deny?: boolean;
}

/** What the fake knows of the app for OAuth: its credentials and redirect URL (as in the app's settings). */
export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
  appId: string;
  redirectUri: string;
  /** Token rotation on: tokens expire after `expiresIn` seconds and come with a refresh token. */
  tokenRotation: boolean;
  expiresIn: number;
}

/** A token the fake issued through OAuth, and the installation it belongs to. */
export interface IssuedToken {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  botUserId: string;
  botId: string;
}

/** The steps manifest.yml declares: Slack checks a step's outputs against them (parameter_validation_failed). */
type DeclaredParameter = { type: string; is_required?: boolean };
const DECLARED_STEPS = (
  parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as {
    functions?: Record<string, { output_parameters: Record<string, DeclaredParameter> }>;
  }
).functions;

/** What Slack says is wrong with a step's outputs, if anything (types checked as far as the app uses them). */
function outputProblems(callbackId: string, outputs: Record<string, unknown>): string[] {
  const declared = DECLARED_STEPS?.[callbackId]?.output_parameters;
  if (!declared) return [`no step ${callbackId} in manifest.yml`];
  const problems: string[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    const parameter = declared[name];
    if (!parameter) problems.push(`${name} is not an output`);
    else if (!fitsType(parameter.type, value)) problems.push(`${name} is not a ${parameter.type}`);
  }
  for (const [name, parameter] of Object.entries(declared))
    if (parameter.is_required && outputs[name] === undefined) problems.push(`${name} is required`);
  return problems;
}

function fitsType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'slack#/types/user_id':
      return typeof value === 'string' && /^[UW][A-Z0-9]+$/.test(value);
    default:
      return true;
  }
}
/** manifest.yml's bot scopes: what an installed app's bot token is granted. */
const DECLARED_BOT_SCOPES =
  (
    parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as {
      oauth_config?: { scopes?: { bot?: string[] } };
    }
  ).oauth_config?.scopes?.bot ?? [];

const VIEW_METHODS = new Set(['views.open', 'views.update', 'views.push', 'views.publish']);
/** Response URLs remembered as given out (the oldest forgotten first, long expired by then). */
const RESPONSE_URLS_KEPT = 50_000;
const MESSAGE_METHODS = new Set(['chat.postMessage', 'chat.postEphemeral', 'chat.update', 'chat.scheduleMessage']);

/**
 * A Slack Web API on loopback that behaves like Slack where the app depends on it: token checks, trigger
 * expiry and reuse, Block Kit limits, response_url endpoints, ok:false errors and 429s on demand, and the
 * Socket Mode WebSocket behind apps.connections.open. Everything it receives is recorded.
 */
export class FakeSlack {
  readonly calls: RecordedCall[] = [];
  readonly responses: RecordedResponse[] = [];
  botToken = 'xoxb-test-bot-token-0000000000';
  /** The workspace's address, as auth.test gives it and as permalinks start. */
  workspaceUrl = 'https://test.slack.com/';
  /**
   * Off for load tests: answers as usual, but keeps no record and checks no Block Kit (real Slack does
   * that work on its own servers, so a benchmark must not charge it to the app).
   */
  recording = true;
  /**
   * On for benchmarks: each views.open and response_url post is noted (kind, id, time) in `benchArrivals`
   * at a few string operations' cost, and `GET /__bench/arrivals?since=N` (the arrivals from index N on)
   * and `POST /__bench/arrivals/clear` serve them to a load generator in another process. Off, those
   * paths answer 404 as any unknown path.
   */
  benchTracking = false;
  readonly benchArrivals: BenchArrival[] = [];
  private silentOpen = 0;
  /** The posts held open at silent response_urls, until answerSilentRequests() or their client gives up. */
  private readonly silentHeld = new Set<SlackResponse>();
  appToken = 'xapp-1-A0TEST001-test-app-token-0000';
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly canned = new Map<string, CannedAnswer[]>();
  private readonly triggers = new Map<string, { issuedAt: number; used: boolean }>();
  private readonly responseUrlAnswers = new Map<string, number>();
  private readonly views = new Map<string, { hash: string; view: Record<string, unknown> }>();
  /** Members of user groups, for usergroups.users.list. */
  readonly userGroups = new Map<string, string[]>();
  /** Handles and names of user groups, for usergroups.list (a group without one is named after its id). */
  readonly userGroupNames = new Map<string, { handle: string; name: string }>();
  /** Channels the bot is not a member of: posting there fails with not_in_channel. */
  readonly channelsWithoutBot = new Set<string>();
  /** Channels that do not exist (or are private without the bot): channel_not_found. */
  readonly unknownChannels = new Set<string>();
  /** The workspace's admins and owners, as users.info reports them (is_admin). */
  readonly workspaceAdmins = new Set<string>();
  /** Users users.info does not know (user_not_found). */
  readonly unknownUsers = new Set<string>();
  /**
   * People of other organizations met through Slack Connect, by user id: users.info answers with the
   * workspace they belong to (their `team_id`), and their is_admin speaks of that organization.
   */
  readonly externalUsers = new Map<string, string>();
  /** Deactivated users: users.info answers with `deleted: true`. */
  readonly deactivatedUsers = new Set<string>();
  /**
   * The scopes granted to the bot token, as Slack reports them in the `x-oauth-scopes` header of each answer
   * to a bot-token call: manifest.yml's bot scopes unless a test takes some away.
   */
  readonly grantedScopes = new Set<string>(DECLARED_BOT_SCOPES);
  /** Bot tokens revoked (the app uninstalled, or the token regenerated): every call answers token_revoked. */
  readonly revokedTokens = new Set<string>();
  /** Messages posted with chat.postMessage, as updated by chat.update, by `channel/ts`. */
  private readonly messages = new Map<
    string,
    { channel: string; ts: string; text?: string; blocks?: Array<Record<string, any>>; thread_ts?: string }
  >();
  /** Errors shown inline in a view after a `response_action: errors` ack, by view id. */
  readonly viewErrors = new Map<string, Record<string, string>>();
  /** Workflow step executions started with `stepExecution`, by function_execution_id. */
  readonly executions = new Map<string, StepExecution>();
  /** Every execution token handed out since the start (kept across resets, for the secret checks). */
  readonly issuedExecutionTokens: string[] = [];
  /** Execution tokens Slack no longer accepts (they answer token_expired). */
  readonly expiredTokens = new Set<string>();
  /** Files the app uploaded, by file id, in the order files.getUploadURLExternal gave their ids. */
  readonly uploads = new Map<string, UploadedFile>();
  /** Files tests registered as shared by users, by file id (see `hostFile`). */
  readonly hostedFiles = new Map<string, HostedFile>();
  /** GETs of hosted files: file id, and the status the fake answered. */
  readonly fileDownloads: Array<{ fileId: string; status: number; at: number }> = [];
  private readonly waiters: Array<() => void> = [];
  /** Called with every call and response_url post once answered (the sandbox's page shows them). */
  readonly watchers = new Set<(traffic: SlackTraffic) => void>();
  private readonly openedViewIds: string[] = [];
  /** The response URLs given out (their last segment): a post to any other one gets 404, as at Slack. */
  private readonly responseUrlIds = new Set<string>();
  private readonly log: (line: string) => void;
  private readonly testHooks: boolean;
  private readonly maxRecords: number;
  private readonly socket: FakeSocketMode | undefined;
  private counter = 0;
  /** The app as registered for OAuth (set by distribution tests before an install). */
  oauthApp: FakeOAuthApp | undefined;
  /** Who goes through the consent screen next. */
  nextInstall: FakeInstall = { teamId: TEST_TEAM_ID, teamName: 'Test', userId: TEST_USER_ID };
  /** Authorization codes handed out by the consent screen, not yet exchanged (codes work once). */
  private readonly codes = new Map<string, FakeInstall>();
  /** Bot tokens issued through oauth.v2.access, valid like `botToken` for their installation. */
  readonly issuedTokens = new Map<string, IssuedToken>();
  /**
   * The workspaces of each Enterprise Grid organization its org-wide installation was approved for, by
   * enterprise id: what auth.teams.list answers an org-wide token, a page at a time.
   */
  readonly orgWorkspaces = new Map<string, Array<{ id: string; name: string }>>();
  /** Refresh tokens issued with rotation on, and the installation they renew (each works once). */
  private readonly refreshTokens = new Map<string, IssuedToken>();

  constructor(options: FakeSlackOptions = {}) {
    this.log = options.log ?? ((line) => void process.stderr.write(`${line}\n`));
    this.testHooks = options.testHooks === true;
    this.maxRecords = options.maxRecords ?? MAX_RECORDS;
    // Whatever goes wrong with one request (a body cut off, a bug) is answered and logged: the stand-in goes on.
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.log(`slack stand-in: ${req.method} ${pathOf(req)} failed: ${(error as Error).message}`);
        if (!res.headersSent && !res.destroyed) json(res, 500, { ok: false, error: 'internal_error' });
        else res.destroy();
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.socket = this.testHooks ? new FakeSocketMode(this.server) : undefined;
  }

  /** Slack's side of Socket Mode (a test hook). */
  get socketMode(): FakeSocketMode {
    if (!this.socket) throw new Error('Socket Mode is a test hook: new FakeSlack({ testHooks: true })');
    return this.socket;
  }

  /** Listens on loopback, on `port` (a free one by default). */
  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this;
  }

  async stop(): Promise<void> {
    await this.socket?.close();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** What the app gets as SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /**
   * The stand-in answering in the caller's own process: a `fetch` for the app's Web API calls and response_url
   * posts (its TestSeams.slack) that takes the same path as a request over loopback, the same checks
   * and records, without a socket or HTTP parsing. A post held open (a silent response_url) ends only when the
   * caller's signal aborts, as over the network.
   */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = Buffer.from(await request.arrayBuffer());
    const req: SlackRequest = Object.assign(Readable.from(body.length > 0 ? [body] : []), {
      url: `${url.pathname}${url.search}`,
      method: request.method,
      // The Host an HTTP client sends (fetch keeps it out of a Request's headers), checked as over the network.
      headers: { ...Object.fromEntries(request.headers), host: url.host },
    });
    return new Promise<Response>((resolve, reject) => {
      let status = 200;
      let headers: Record<string, string> = {};
      const res: SlackResponse = {
        writeHead: (written, writtenHeaders = {}) => {
          status = written;
          headers = writtenHeaders;
          return res;
        },
        end: (written) => resolve(new Response(written ?? null, { status, headers })),
        once: () => res,
      };
      request.signal.addEventListener('abort', () => reject(request.signal.reason as Error), { once: true });
      this.handle(req, res).catch(reject);
    });
  };

  /** A fresh response_url, as Slack puts in every command and interaction. */
  responseUrl(): string {
    const id = randomUUID();
    this.responseUrlIds.add(id);
    if (this.responseUrlIds.size > RESPONSE_URLS_KEPT)
      this.responseUrlIds.delete(this.responseUrlIds.values().next().value as string);
    return `${this.url}/response/${id}`;
  }

  /**
   * A response_url that never answers: the fake reads the post and holds the request open, without a
   * status, until it stops (Slack's side of a response_url hanging, for overload tests).
   */
  silentResponseUrl(): string {
    if (!this.testHooks) throw new Error('silent response URLs are a test hook: new FakeSlack({ testHooks: true })');
    return `${this.url}/silent/${randomUUID()}`;
  }

  /** Posts to silent response_urls being held open right now. */
  get silentRequestsOpen(): number {
    return this.silentOpen;
  }

  /**
   * Answers every post held open at a silent response_url with `status`: a test whose checks are done lets what
   * they held up end now, instead of the app's stop waiting out the caller's own deadline.
   */
  answerSilentRequests(status = 500): void {
    for (const res of [...this.silentHeld]) {
      this.releaseSilent(res);
      res.writeHead(status).end();
    }
  }

  /** A fresh trigger_id that expires 3 s from now and works once, like Slack's. */
  triggerId(issuedAt = Date.now()): string {
    const id = `${++this.counter}.${Date.now()}.${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    this.triggers.set(id, { issuedAt, used: false });
    if (this.triggers.size > 50_000) this.triggers.delete(this.triggers.keys().next().value as string); // expired long ago
    return id;
  }

  /** The next `times` calls of `method` get this answer instead of the normal one. */
  answerNext(method: string, answer: CannedAnswer, times = 1): void {
    const queue = this.canned.get(method) ?? [];
    for (let i = 0; i < times; i += 1) queue.push(answer);
    this.canned.set(method, queue);
  }

  /** Drops the canned answers still queued for `method`: its calls are answered normally again. */
  forgetAnswers(method: string): void {
    this.canned.delete(method);
  }

  /** Posts to this response_url answer with an HTTP status (e.g. 404 once it has expired). */
  failResponseUrl(url: string, status: number): void {
    this.responseUrlAnswers.set(url.slice(url.lastIndexOf('/') + 1), status);
  }

  /** Calls the fake answered with ok:false (other than canned answers a test asked for). */
  get failedCalls(): RecordedCall[] {
    return this.calls.filter((c) => c.answer?.ok === false);
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  responsesTo(url: string): RecordedResponse[] {
    const id = url.slice(url.lastIndexOf('/') + 1);
    return this.responses.filter((r) => r.id === id);
  }

  reset(): void {
    this.executions.clear();
    this.expiredTokens.clear();
    this.uploads.clear();
    this.hostedFiles.clear();
    this.fileDownloads.length = 0;
    this.calls.length = 0;
    this.responses.length = 0;
    this.canned.clear();
    this.responseUrlAnswers.clear();
    this.revokedTokens.clear();
    this.orgWorkspaces.clear();
    this.unknownUsers.clear();
    this.externalUsers.clear();
    this.deactivatedUsers.clear();
    this.grantedScopes.clear();
    for (const scope of DECLARED_BOT_SCOPES) this.grantedScopes.add(scope);
  }

  /** Resolves once `check` returns something truthy (checked after each recorded call), or fails after `timeoutMs`. */
  async waitFor<T>(check: () => T | undefined | false, timeoutMs = 5_000, what = 'a Slack call'): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check();
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${what}; calls so far: ${this.calls.map((c) => c.method).join(', ') || 'none'}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitForCall(
    method: string,
    predicate: (call: RecordedCall) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<RecordedCall> {
    return this.waitFor(() => this.calls.find((c) => c.method === method && predicate(c)), timeoutMs, method);
  }

  /** The view the app put in place of modal `viewId` (views.update), once it has. */
  async viewUpdate(viewId: string, timeoutMs = 5_000): Promise<Record<string, any>> {
    return (await this.waitForCall('views.update', (c) => c.params.view_id === viewId, timeoutMs)).params
      .view as Record<string, any>;
  }

  async waitForResponse(url: string, count = 1, timeoutMs = 5_000): Promise<RecordedResponse[]> {
    return this.waitFor(
      () => (this.responsesTo(url).length >= count ? this.responsesTo(url) : undefined),
      timeoutMs,
      `a post to ${url}`,
    );
  }

  /**
   * Registers a file as if a user had uploaded it, and returns the file object Slack puts in a file_input's
   * view state (`files: [...]`). Its `url_private_download` serves `content` on a GET carrying
   * `Authorization: Bearer <bot token>` (401 without it or with another token, 404 once forgotten).
   */
  hostFile(file: {
    content: string | Buffer;
    name: string;
    size?: number;
    mimetype?: string;
    filetype?: string;
    /** Who shared it (the sandbox's acting person); the tests' user by default. */
    user?: string;
  }) {
    const id = `F${String(++this.counter).padStart(9, '0')}`;
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    const hosted: HostedFile = {
      content,
      name: file.name,
      size: file.size ?? content.length,
      mimetype: file.mimetype ?? 'text/csv',
      filetype: file.filetype ?? 'csv',
    };
    this.keepEntry(this.hostedFiles, id, hosted);
    const download = `${this.url}/files-pri/${TEST_TEAM_ID}-${id}/download/${encodeURIComponent(file.name)}`;
    return {
      id,
      created: Math.floor(Date.now() / 1000),
      timestamp: Math.floor(Date.now() / 1000),
      name: hosted.name,
      title: hosted.name,
      mimetype: hosted.mimetype,
      filetype: hosted.filetype,
      pretty_type: hosted.filetype.toUpperCase(),
      user: file.user ?? TEST_USER_ID,
      user_team: TEST_TEAM_ID,
      editable: false,
      size: hosted.size,
      mode: 'hosted',
      is_external: false,
      external_type: '',
      is_public: false,
      public_url_shared: false,
      display_as_bot: false,
      username: '',
      url_private: `${this.url}/files-pri/${TEST_TEAM_ID}-${id}/${encodeURIComponent(file.name)}`,
      url_private_download: download,
      permalink: `${this.workspaceUrl}files/${TEST_USER_ID}/${id}/${encodeURIComponent(file.name)}`,
      permalink_public: `https://slack-files.com/${TEST_TEAM_ID}-${id}-0000000000`,
      is_starred: false,
      has_rich_preview: false,
      file_access: 'visible',
    };
  }

  /** The files the app completed into a conversation (DM ids for users), oldest first. */
  uploadsTo(channelId: string): UploadedFile[] {
    return [...this.uploads.values()].filter((u) => u.completed?.channelId === channelId);
  }

  /** The text of a file the app uploaded and completed, by file id. */
  uploadedText(fileId: string): string {
    const upload = this.uploads.get(fileId);
    if (!upload?.content || !upload.completed) throw new Error(`no completed upload ${fileId}`);
    return upload.content.toString('utf8');
  }

  /** Adds a record, dropping the oldest tenth once there are more than `maxRecords` (memory stays bounded). */
  private keep<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > this.maxRecords) list.splice(0, list.length - Math.floor(this.maxRecords * 0.9));
  }

  private keepEntry<K, V>(map: Map<K, V>, key: K, value: V): void {
    map.set(key, value);
    if (map.size <= this.maxRecords) return;
    for (const oldest of map.keys()) {
      map.delete(oldest);
      if (map.size <= this.maxRecords * 0.9) break;
    }
  }

  private notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private tell(traffic: SlackTraffic): void {
    for (const watcher of this.watchers) watcher(traffic);
  }

  private async handle(req: SlackRequest, res: SlackResponse): Promise<void> {
    const path = new URL(req.url ?? '/', this.url).pathname;
    // It holds the workspace's tokens and acts for anyone, as the page does: a page of another site that points
    // its own name at this machine (DNS rebinding) must not reach it through the browser.
    if (!addressedToLoopback(req)) {
      const why = notLoopbackRefusal('the Slack stand-in', req);
      this.log(`slack stand-in: ${req.method ?? 'GET'} ${path} refused (403): ${why}`);
      req.resume();
      return json(res, 403, { ok: false, error: 'unknown_host', detail: why });
    }
    // Files move as bytes, not text: handled before the body is read as a string.
    if (path.startsWith('/upload/')) return this.receiveUpload(path.slice('/upload/'.length), req, res);
    if (path.startsWith('/files-pri/')) return this.serveFile(path, req, res);
    if (path === '/oauth/v2/authorize') return this.consentScreen(req, res);
    const raw = await readBody(req);
    if (path.startsWith('/response/')) return this.handleResponseUrl(path.slice('/response/'.length), raw, res);
    if (this.testHooks && path.startsWith('/silent/')) return this.holdSilently(path.slice('/silent/'.length), res);
    if (this.testHooks && this.benchTracking && path.startsWith('/__bench/')) return this.handleBench(req, path, res);
    if (!path.startsWith('/api/')) return json(res, 404, { ok: false, error: 'not_found' });

    const method = path.slice('/api/'.length);
    if (this.benchTracking && method === 'views.open') {
      this.noteArrival('views.open', triggerIdOf(raw, req.headers['content-type']));
    }
    if (!this.recording && VIEW_METHODS.has(method)) {
      // Load tests: answer at once, without the cost of reading the view (it is Slack's cost, not the app's).
      return json(res, 200, { ok: true, view: { id: `V${++this.counter}`, hash: String(this.counter) } });
    }
    const parsed = parseParams(raw, req.headers['content-type']);
    if (!parsed.ok) {
      // Slack answers a JSON body it cannot read as it answers any failed call: 200 and ok:false.
      const why = parsed.error === 'invalid_json' ? 'not JSON' : 'not a JSON object';
      this.log(`slack stand-in: POST ${path} refused (${parsed.error}): the body is ${why}`);
      const refused: RecordedCall = { method, params: {}, token: undefined, at: Date.now() };
      refused.answer = { ok: false, error: parsed.error };
      if (this.recording) this.keep(this.calls, refused);
      this.notify();
      return json(res, 200, refused.answer);
    }
    const params = parsed.params;
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ')
      ? auth.slice(7)
      : typeof params.token === 'string'
        ? params.token
        : undefined;
    const call: RecordedCall = { method, params, token, at: Date.now() };
    if (this.recording) this.keep(this.calls, call);

    const canned = this.canned.get(method)?.shift();
    // A call answered late has arrived all the same: whoever waits for its arrival need not wait for its answer.
    if (canned?.delayMs || canned?.until) this.notify();
    if (canned?.delayMs) await new Promise((resolve) => setTimeout(resolve, canned.delayMs));
    if (canned?.until) await canned.until.catch(() => undefined);
    if (canned && (canned.status !== undefined || canned.body !== undefined)) {
      call.answer = canned.body ?? { ok: canned.status === undefined || canned.status < 400 };
      this.notify();
      this.tell({ kind: 'call', call });
      return json(res, canned.status ?? 200, canned.body ?? { ok: true }, canned.headers);
    }
    if (method === 'apps.connections.open' && !this.socket) {
      // What Slack answers an app whose Socket Mode is off: the sandbox's app runs in HTTP mode.
      call.answer = { ok: false, error: 'not_allowed_token_type' };
      this.notify();
      this.tell({ kind: 'call', call });
      return json(res, 200, call.answer);
    }
    if (method === 'oauth.v2.access') {
      call.answer = this.exchange(params, req.headers.authorization);
      this.notify();
      this.tell({ kind: 'call', call });
      return json(res, 200, call.answer);
    }
    const expectedToken = method === 'apps.connections.open' ? this.appToken : this.botToken;
    // A workflow execution's token works like the bot token while its execution runs (Slack: "just in time").
    const executionToken =
      token !== undefined && method !== 'apps.connections.open' && this.isRunningExecutionToken(token);
    call.answer =
      token !== undefined && this.expiredTokens.has(token)
        ? { ok: false, error: 'token_expired' }
        : token !== undefined && this.revokedTokens.has(token)
          ? { ok: false, error: 'token_revoked' }
          : token !== expectedToken && !executionToken && !(token !== undefined && this.issuedTokens.has(token))
            ? { ok: false, error: token ? 'invalid_auth' : 'not_authed' }
            : this.answer(method, params, token);
    this.notify();
    this.tell({ kind: 'call', call });
    // Slack names the token's scopes in a header of every answer to a call it accepted.
    const scopes =
      call.answer.ok === true && token !== undefined && (token === this.botToken || this.issuedTokens.has(token))
        ? { 'x-oauth-scopes': [...this.grantedScopes].join(',') }
        : undefined;
    json(res, 200, call.answer, scopes);
  }

  private answer(method: string, params: Record<string, unknown>, token?: string): Record<string, unknown> {
    if (MESSAGE_METHODS.has(method) && this.recording) {
      const problems = messageProblems(params);
      if (problems.length > 0) return { ok: false, error: 'invalid_blocks', errors: problems };
      if (typeof params.channel !== 'string' || !params.channel) return { ok: false, error: 'channel_not_found' };
    }
    if (VIEW_METHODS.has(method) && this.recording) {
      const problems = viewProblems(params.view);
      if (problems.length > 0)
        return { ok: false, error: 'invalid_arguments', response_metadata: { messages: problems } };
    }
    switch (method) {
      case 'auth.test': {
        const issued = token === undefined ? undefined : this.issuedTokens.get(token);
        if (issued)
          return {
            ok: true,
            url: `https://${issued.teamId ?? issued.enterpriseId}.slack.com/`,
            team: 'Installed',
            user: 'mintlink',
            team_id: issued.teamId ?? '',
            user_id: issued.botUserId,
            bot_id: issued.botId,
            ...(issued.enterpriseId
              ? { enterprise_id: issued.enterpriseId, is_enterprise_install: !issued.teamId }
              : {}),
          };
        return {
          ok: true,
          url: this.workspaceUrl,
          team: 'Test',
          user: 'mintlink',
          team_id: TEST_TEAM_ID,
          user_id: TEST_BOT_USER_ID,
          bot_id: TEST_BOT_ID,
        };
      }
      case 'auth.teams.list':
        return this.teamsList(params, token);
      case 'apps.connections.open':
        return { ok: true, url: this.socketMode.url(this.url) };
      case 'chat.postMessage': {
        const channel = String(params.channel);
        if (this.channelsWithoutBot.has(channel)) return { ok: false, error: 'not_in_channel' };
        if (this.unknownChannels.has(channel)) return { ok: false, error: 'channel_not_found' };
        const ts = `${Math.floor(Date.now() / 1000)}.${String(++this.counter).padStart(6, '0')}`;
        // A user id as channel means the app's DM with that user.
        const posted = channel.startsWith('U') || channel.startsWith('W') ? `D${channel.slice(1)}` : channel;
        this.keepEntry(this.messages, `${posted}/${ts}`, {
          channel: posted,
          ts,
          text: params.text as string,
          blocks: params.blocks as Array<Record<string, any>>,
          ...(params.thread_ts ? { thread_ts: asText(params.thread_ts) } : {}),
        });
        return { ok: true, channel: posted, ts, message: { text: params.text } };
      }
      case 'chat.update': {
        const key = `${String(params.channel)}/${String(params.ts)}`;
        const existing = this.messages.get(key);
        if (!existing) return { ok: false, error: 'message_not_found' };
        this.messages.set(key, {
          ...existing,
          text: params.text as string,
          blocks: params.blocks as Array<Record<string, any>>,
        });
        return { ok: true, channel: params.channel, ts: params.ts, text: params.text };
      }
      case 'usergroups.list':
        return {
          ok: true,
          usergroups: [...this.userGroups.entries()].map(([id, members]) => ({
            id,
            team_id: TEST_TEAM_ID,
            handle: this.userGroupNames.get(id)?.handle ?? id.toLowerCase(),
            name: this.userGroupNames.get(id)?.name ?? `Group ${id}`,
            user_count: members.length,
          })),
        };
      case 'users.info': {
        const user = asText(params.user);
        if (!/^[UW][A-Z0-9]+$/.test(user) || this.unknownUsers.has(user)) return { ok: false, error: 'user_not_found' };
        const admin = this.workspaceAdmins.has(user);
        const deleted = this.deactivatedUsers.has(user);
        // A member of the workspace whose token asks; someone of another organization says theirs.
        const asking = token === undefined ? undefined : this.issuedTokens.get(token)?.teamId;
        const teamId = this.externalUsers.get(user) ?? asking ?? TEST_TEAM_ID;
        const person = PEOPLE.find((p) => p.id === user);
        const names = person
          ? {
              name: person.name.split(' ')[0]?.toLowerCase(),
              real_name: person.name,
              profile: { real_name: person.name, display_name: person.name.split(' ')[0] },
              ...zoneFields(person.tz),
            }
          : {};
        return { ok: true, user: { id: user, team_id: teamId, is_admin: admin, is_owner: false, deleted, ...names } };
      }
      case 'conversations.info': {
        const channel = asText(params.channel);
        if (this.unknownChannels.has(channel) || !/^[CGD][A-Z0-9]+$/.test(channel))
          return { ok: false, error: 'channel_not_found' };
        const member = !this.channelsWithoutBot.has(channel);
        return {
          ok: true,
          channel: { id: channel, name: channelName(channel), is_member: member, is_archived: false },
        };
      }
      case 'usergroups.users.list': {
        const members = this.userGroups.get(String(params.usergroup));
        return members ? { ok: true, users: members } : { ok: false, error: 'no_such_subteam' };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: `${Math.floor(Date.now() / 1000)}.000001` };
      case 'views.open':
      case 'views.push':
        return this.openView(params);
      case 'views.update':
        return this.updateView(params);
      case 'views.publish':
        return this.publishHome(params, token);
      case 'functions.completeSuccess':
      case 'functions.completeError':
        return this.endExecution(method, params, token);
      case 'chat.getPermalink': {
        if (typeof params.channel !== 'string' || typeof params.message_ts !== 'string')
          return { ok: false, error: 'invalid_arguments' };
        if (this.channelsWithoutBot.has(params.channel)) return { ok: false, error: 'channel_not_found' };
        const permalink = `${this.workspaceUrl}archives/${params.channel}/p${params.message_ts.replace('.', '')}`;
        return { ok: true, channel: params.channel, permalink };
      }
      case 'files.getUploadURLExternal': {
        const length = Number(params.length);
        if (typeof params.filename !== 'string' || !params.filename) return { ok: false, error: 'invalid_arguments' };
        if (!Number.isInteger(length) || length < 1) return { ok: false, error: 'invalid_arguments' };
        const fileId = `F${String(++this.counter).padStart(9, '0')}`;
        this.keepEntry(this.uploads, fileId, { fileId, filename: params.filename, length });
        return { ok: true, upload_url: `${this.url}/upload/${fileId}`, file_id: fileId };
      }
      case 'files.completeUploadExternal':
        return this.completeUpload(params);
      case 'conversations.open':
        return { ok: true, channel: { id: `D${(asText(params.users) || 'X').slice(1)}` } };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /**
   * A workflow runs a custom step of the app: the function_executed event Slack sends (deliver it with
   * AppProcess.event), with a fresh execution id and token.
   */
  stepExecution(callbackId: string, inputs: Record<string, unknown>): Record<string, unknown> {
    const n = ++this.counter;
    const id = `Fx${String(n).padStart(10, '0')}`;
    const token = `xwfp-${n}-${randomUUID().replace(/-/g, '')}`;
    this.keepEntry(this.executions, id, { id, callbackId, token, state: 'running' });
    this.keep(this.issuedExecutionTokens, token);
    return {
      type: 'function_executed',
      function: {
        id: `Fn${String(n).padStart(10, '0')}`,
        callback_id: callbackId,
        title: callbackId,
        description: '',
        type: 'app',
        input_parameters: [],
        output_parameters: [],
        app_id: 'A0TEST001',
        date_created: 1_700_000_000,
        date_updated: 1_700_000_000,
        date_deleted: 0,
      },
      inputs,
      function_execution_id: id,
      workflow_execution_id: `Wx${String(n).padStart(10, '0')}`,
      event_ts: `${Date.now() / 1000}`,
      bot_access_token: token,
    };
  }

  /** Resolves once the app has completed or failed the step (or fails after `timeoutMs`). */
  async stepEnd(executionId: string, timeoutMs = 10_000): Promise<StepExecution> {
    return this.waitFor(
      () => {
        const execution = this.executions.get(executionId);
        return execution && execution.state !== 'running' ? execution : undefined;
      },
      timeoutMs,
      `the end of step execution ${executionId}`,
    );
  }

  private isRunningExecutionToken(token: string): boolean {
    for (const execution of this.executions.values())
      if (execution.token === token) return execution.state === 'running';
    return false;
  }

  private endExecution(method: string, params: Record<string, unknown>, token?: string): Record<string, unknown> {
    const execution = this.executions.get(asText(params.function_execution_id));
    if (!execution) return { ok: false, error: 'function_execution_not_found' };
    if (execution.state !== 'running') return { ok: false, error: 'execution_not_in_running_state' };
    if (method === 'functions.completeSuccess') {
      if (typeof params.outputs !== 'object' || params.outputs === null)
        return { ok: false, error: 'invalid_arguments' };
      const problems = outputProblems(execution.callbackId, params.outputs as Record<string, unknown>);
      if (problems.length > 0) return { ok: false, error: 'parameter_validation_failed', errors: problems };
      execution.state = 'completed';
      execution.outputs = params.outputs as Record<string, unknown>;
    } else {
      if (typeof params.error !== 'string' || !params.error) return { ok: false, error: 'invalid_arguments' };
      execution.state = 'failed';
      execution.error = params.error;
    }
    if (token !== undefined) execution.endedWith = token;
    return { ok: true };
  }

  /**
   * Slack's consent screen (GET /oauth/v2/authorize): checks the app's client id, scopes and state, then
   * sends the browser back to the app's redirect URL as Slack does once the person clicked Allow (a code) or
   * Cancel (`error=access_denied`), keeping the state. Who installs is `nextInstall`.
   */
  private consentScreen(req: SlackRequest, res: SlackResponse): void {
    req.resume();
    const query = new URL(req.url ?? '/', this.url).searchParams;
    const app = this.oauthApp;
    const problem = !app
      ? 'no app registered for OAuth'
      : query.get('client_id') !== app.clientId
        ? 'invalid_client_id'
        : !query.get('scope')
          ? 'invalid_scope'
          : query.get('redirect_uri') !== null && query.get('redirect_uri') !== app.redirectUri
            ? 'bad_redirect_uri'
            : undefined;
    if (problem || !app) return void res.writeHead(400, { 'content-type': 'text/plain' }).end(problem);
    const back = new URL(app.redirectUri);
    const install = this.nextInstall;
    if (install.deny) back.searchParams.set('error', 'access_denied');
    else {
      const code = `${++this.counter}.${randomUUID().replace(/-/g, '')}`;
      this.codes.set(code, install);
      back.searchParams.set('code', code);
    }
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.toString() }).end();
  }

  /** oauth.v2.access: a code from the consent screen (once), or a refresh token with rotation on (once). */
  private exchange(params: Record<string, unknown>, authorization: string | undefined): Record<string, unknown> {
    const app = this.oauthApp;
    const basic = authorization?.startsWith('Basic ')
      ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')
      : [];
    const clientId = asText(params.client_id) || basic[0];
    const clientSecret = asText(params.client_secret) || basic[1];
    if (!app || clientId !== app.clientId) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== app.clientSecret) return { ok: false, error: 'bad_client_secret' };
    if (params.grant_type === 'refresh_token') {
      const issued = this.refreshTokens.get(asText(params.refresh_token));
      if (!issued) return { ok: false, error: 'invalid_refresh_token' };
      this.refreshTokens.delete(asText(params.refresh_token));
      const { token, refreshToken } = this.issue(issued, app);
      return {
        ok: true,
        app_id: app.appId,
        token_type: 'bot',
        access_token: token,
        expires_in: app.expiresIn,
        refresh_token: refreshToken,
        ...(issued.teamId ? { team: { id: issued.teamId } } : {}),
      };
    }
    if (params.redirect_uri !== undefined && params.redirect_uri !== app.redirectUri)
      return { ok: false, error: 'bad_redirect_uri' };
    const install = this.codes.get(asText(params.code));
    if (!install) return { ok: false, error: 'invalid_code' };
    this.codes.delete(asText(params.code));
    const orgWide = install.orgWide === true && install.enterprise !== undefined;
    const n = ++this.counter;
    const issued: IssuedToken = {
      teamId: orgWide ? undefined : install.teamId,
      enterpriseId: install.enterprise?.id,
      botUserId: `UB${String(n).padStart(8, '0')}`,
      botId: `BB${String(n).padStart(8, '0')}`,
    };
    const { token, refreshToken } = this.issue(issued, app);
    return {
      ok: true,
      app_id: app.appId,
      authed_user: { id: install.userId },
      scope: 'commands,chat:write,usergroups:read,users:read,channels:read,groups:read,files:read,files:write',
      token_type: 'bot',
      access_token: token,
      bot_user_id: issued.botUserId,
      team: orgWide ? null : { id: install.teamId, name: install.teamName },
      enterprise: install.enterprise ?? null,
      is_enterprise_install: orgWide,
      ...(refreshToken ? { refresh_token: refreshToken, expires_in: app.expiresIn } : {}),
    };
  }

  /**
   * auth.teams.list: the workspaces an org-wide token's organization approved the app for, `limit` at a time
   * (Slack's default 100, at most 1000) from `cursor`; a workspace token's own workspace.
   */
  private teamsList(params: Record<string, unknown>, token?: string): Record<string, unknown> {
    const issued = token === undefined ? undefined : this.issuedTokens.get(token);
    if (issued?.teamId || !issued?.enterpriseId)
      return {
        ok: true,
        teams: [{ id: issued?.teamId ?? TEST_TEAM_ID, name: 'Test' }],
        response_metadata: { next_cursor: '' },
      };
    const limit = params.limit === undefined ? 100 : Number(params.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return { ok: false, error: 'invalid_limit' };
    const cursor = asText(params.cursor);
    const start = cursor
      ? Number(
          Buffer.from(cursor, 'base64url')
            .toString('utf8')
            .replace(/^team:/, ''),
        )
      : 0;
    if (!Number.isInteger(start) || start < 0) return { ok: false, error: 'invalid_cursor' };
    const all = this.orgWorkspaces.get(issued.enterpriseId) ?? [];
    const next = start + limit < all.length ? Buffer.from(`team:${start + limit}`).toString('base64url') : '';
    return { ok: true, teams: all.slice(start, start + limit), response_metadata: { next_cursor: next } };
  }

  private issue(issued: IssuedToken, app: FakeOAuthApp): { token: string; refreshToken: string | undefined } {
    const random = randomUUID().replace(/-/g, '');
    const token = `${app.tokenRotation ? 'xoxe.' : ''}xoxb-${issued.teamId ?? issued.enterpriseId}-${random}`;
    this.issuedTokens.set(token, issued);
    if (!app.tokenRotation) return { token, refreshToken: undefined };
    const refreshToken = `xoxe-1-${randomUUID().replace(/-/g, '')}`;
    this.refreshTokens.set(refreshToken, issued);
    return { token, refreshToken };
  }

  /** Slack's upload service: raw bytes (or a form), 200 when they arrived, the length checked at completion. */
  private async receiveUpload(fileId: string, req: SlackRequest, res: SlackResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk);
    const upload = this.uploads.get(fileId);
    if (req.method !== 'POST' || !upload) return void res.writeHead(404).end('not found');
    upload.content = Buffer.concat(chunks);
    this.notify();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${upload.content.length}`);
  }

  private completeUpload(params: Record<string, unknown>): Record<string, unknown> {
    const files = params.files;
    if (!Array.isArray(files) || files.length === 0) return { ok: false, error: 'invalid_arguments' };
    const channelId = typeof params.channel_id === 'string' ? params.channel_id : undefined;
    // Slack's own check: conversation ids only (a user id is refused).
    if (channelId && !/^[CGDZ][A-Z0-9]{2,}$/.test(channelId)) return { ok: false, error: 'invalid_arguments' };
    const found: UploadedFile[] = [];
    for (const file of files as Array<{ id?: unknown }>) {
      const upload = this.uploads.get(String(file.id));
      if (!upload || upload.completed) return { ok: false, error: 'file_not_found' };
      if (!upload.content) return { ok: false, error: 'file_upload_incomplete' };
      if (upload.content.length !== upload.length) return { ok: false, error: 'file_upload_size_mismatch' };
      found.push(upload);
    }
    for (const [i, upload] of found.entries()) {
      const title = (files[i] as { title?: unknown }).title;
      upload.completed = {
        channelId: channelId ?? '',
        ...(typeof title === 'string' ? { title } : {}),
        ...(typeof params.initial_comment === 'string' ? { initialComment: params.initial_comment } : {}),
        ...(typeof params.thread_ts === 'string' ? { threadTs: params.thread_ts } : {}),
        at: Date.now(),
      };
    }
    return { ok: true, files: found.map((u) => ({ id: u.fileId, title: u.completed?.title ?? u.filename })) };
  }

  /** `url_private(_download)`: the bot token in an Authorization header, as Slack requires for private files. */
  private serveFile(path: string, req: SlackRequest, res: SlackResponse): void {
    req.resume();
    const fileId = /^\/files-pri\/[^/-]+-([^/]+)\//.exec(path)?.[1] ?? '';
    const file = this.hostedFiles.get(fileId);
    const status =
      req.headers.authorization !== `Bearer ${this.botToken}` ? 401 : !file || req.method !== 'GET' ? 404 : 200;
    this.keep(this.fileDownloads, { fileId, status, at: Date.now() });
    this.notify();
    if (status !== 200 || !file) return void res.writeHead(status, { 'content-type': 'text/plain' }).end('no');
    res.writeHead(200, { 'content-type': file.mimetype, 'content-length': String(file.content.length) });
    res.end(file.content);
  }

  private openView(params: Record<string, unknown>): Record<string, unknown> {
    const triggerId = asText(params.trigger_id);
    const trigger = this.recording ? this.triggers.get(triggerId) : { issuedAt: Date.now(), used: false }; // load tests: any trigger
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (Date.now() - trigger.issuedAt > TRIGGER_TTL_MS) return { ok: false, error: 'expired_trigger_id' };
    trigger.used = true;
    const id = `V${String(++this.counter).padStart(8, '0')}`;
    this.openedViewIds.push(id);
    return { ok: true, view: this.storeView(id, params.view as Record<string, unknown>) };
  }

  private updateView(params: Record<string, unknown>): Record<string, unknown> {
    const id = asText(params.view_id ?? params.external_id ?? params.user_id);
    const current = this.views.get(id);
    if (!current && params.user_id === undefined) return { ok: false, error: 'not_found' };
    if (params.hash !== undefined && current && params.hash !== current.hash)
      return { ok: false, error: 'hash_conflict' };
    return { ok: true, view: this.storeView(id, params.view as Record<string, unknown>) };
  }

  /**
   * App Home: one per user and workspace (an Enterprise Grid user has a Home in each workspace the app is
   * installed in, each with its own version). `view(userId)` shows the latest published, whichever workspace.
   */
  private publishHome(params: Record<string, unknown>, token: string | undefined): Record<string, unknown> {
    const team = token === undefined ? undefined : this.issuedTokens.get(token)?.teamId;
    if (team === undefined) return this.updateView(params);
    const home = `${team}/${asText(params.user_id)}`;
    const current = this.views.get(home);
    if (params.hash !== undefined && current && params.hash !== current.hash)
      return { ok: false, error: 'hash_conflict' };
    const published = this.storeView(home, params.view as Record<string, unknown>);
    this.keepEntry(this.views, asText(params.user_id), {
      hash: String(published.hash),
      view: params.view as Record<string, unknown>,
    });
    return { ok: true, view: published };
  }

  /** A message as it looks now (after any chat.update), with its channel and ts. */
  message(
    channel: string,
    ts: string,
  ): { channelId: string; ts: string; text?: string; blocks?: Array<Record<string, any>> } {
    const found = this.messages.get(`${channel}/${ts}`);
    if (!found) throw new Error(`no message ${ts} in ${channel}`);
    return {
      channelId: found.channel,
      ts: found.ts,
      ...(found.text !== undefined ? { text: found.text } : {}),
      ...(found.blocks ? { blocks: found.blocks } : {}),
    };
  }

  /** The replies posted in a message's thread, in order. */
  threadReplies(channel: string, ts: string): Array<{ text?: string; blocks?: Array<Record<string, any>> }> {
    return [...this.messages.values()].filter((m) => m.channel === channel && m.thread_ts === ts);
  }

  /** The view a modal shows now (as Slack would hand it back in a payload), by view id. */
  view(id: string): { id: string; hash: string; [key: string]: unknown } {
    const current = this.views.get(id);
    if (!current) throw new Error(`no view ${id}`);
    return { ...current.view, id, hash: current.hash };
  }

  /** The modal was closed (by its person, or by Slack after a submission): the view is gone. */
  forgetView(id: string): void {
    this.views.delete(id);
  }

  /** The view opened by the last views.open call. */
  lastOpenedView(): { id: string; hash: string; [key: string]: unknown } {
    const opened = [...this.openedViewIds];
    const id = opened.at(-1);
    if (!id)
      throw new Error(`no view was opened; calls so far: ${this.calls.map((c) => c.method).join(', ') || 'none'}`);
    return this.view(id);
  }

  /**
   * What Slack does with the ack of a view submission: show the new view (after checking it like any
   * other), or the inline errors, which must be keyed by input blocks of the view.
   */
  applySubmissionAck(viewId: string, ack: Record<string, unknown> | undefined): void {
    // Errors shown under the inputs last until the next submission; an errors ack shows its own.
    this.viewErrors.delete(viewId);
    if (!ack || Object.keys(ack).length === 0) {
      this.views.delete(viewId); // an empty ack closes the view
      return;
    }
    const action = ack.response_action;
    if (action === 'update' || action === 'push') {
      const problems = viewProblems(ack.view);
      if (problems.length > 0) throw new Error(`Slack would reject the acknowledged view:\n${problems.join('\n')}`);
      if (action === 'update') this.storeView(viewId, ack.view as Record<string, unknown>);
      return;
    }
    if (action === 'errors') {
      const errors = ack.errors as Record<string, string>;
      const blocks = (this.views.get(viewId)?.view.blocks ?? []) as Array<{ type: string; block_id?: string }>;
      const inputIds = new Set(blocks.filter((b) => b.type === 'input').map((b) => b.block_id));
      const stray = Object.keys(errors).filter((id) => !inputIds.has(id));
      if (stray.length > 0)
        throw new Error(`errors keyed by blocks that are not inputs of the view: ${stray.join(', ')}`);
      this.viewErrors.set(viewId, errors);
      return;
    }
    if (action === 'clear') this.views.delete(viewId);
  }

  private storeView(id: string, view: Record<string, unknown>): Record<string, unknown> {
    const hash = `${Date.now()}.${randomUUID().slice(0, 8)}`;
    this.keepEntry(this.views, id, { hash, view });
    return { ...view, id, hash, state: { values: {} } };
  }

  private noteArrival(kind: BenchArrival['kind'], id: string): void {
    this.benchArrivals.push({ kind, id, at: performance.timeOrigin + performance.now() });
  }

  private holdSilently(id: string, res: SlackResponse): void {
    if (this.benchTracking) this.noteArrival('silent', id);
    this.silentOpen += 1;
    this.silentHeld.add(res);
    res.once('close', () => this.releaseSilent(res)); // when the client gives up, or at stop()
  }

  private releaseSilent(res: SlackResponse): void {
    if (this.silentHeld.delete(res)) this.silentOpen -= 1;
  }

  private handleBench(req: SlackRequest, path: string, res: SlackResponse): void {
    if (req.method === 'GET' && path === '/__bench/arrivals') {
      const since = Number(new URL(req.url ?? '/', this.url).searchParams.get('since') ?? 0) || 0;
      const arrivals = this.benchArrivals.slice(since).map((a) => [a.kind, a.id, a.at]);
      return json(res, 200, { next: this.benchArrivals.length, silentOpen: this.silentOpen, arrivals });
    }
    if (req.method === 'POST' && path === '/__bench/arrivals/clear') {
      this.benchArrivals.length = 0;
      return json(res, 200, { ok: true });
    }
    json(res, 404, { ok: false, error: 'not_found' });
  }

  /**
   * A post to a response_url, answered as Slack's hooks answer: 404 `no_service` for a URL never given out,
   * 400 `invalid_payload` for a body that is not a JSON object (both plain text, see
   * https://api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks), 400 `invalid_blocks`
   * for Block Kit beyond the limits. Load tests (recording off) post to URLs made up in another process.
   */
  private handleResponseUrl(id: string, raw: string, res: SlackResponse): void {
    if (this.benchTracking) {
      this.noteArrival(/"response_type"\s*:\s*"in_channel"/.test(raw) ? 'in_channel' : 'response', id);
    }
    if (this.recording && !this.responseUrlIds.has(id)) {
      this.log(`slack stand-in: POST /response/${id} refused (404 no_service): no such response_url`);
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no_service');
    }
    const parsed = parseObject(raw || '{}');
    if (!parsed.ok) {
      const why = parsed.error === 'invalid_json' ? 'not JSON' : 'not a JSON object';
      this.log(`slack stand-in: POST /response/${id} refused (400 invalid_payload): ${why}`);
      return void res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_payload');
    }
    const body = parsed.params;
    if (this.recording) this.keep(this.responses, { id, body, at: Date.now() });
    this.notify();
    const status = this.responseUrlAnswers.get(id);
    if (status) {
      this.tell({ kind: 'response', id, body, status, problems: [] });
      return void res.writeHead(status).end('expired_url');
    }
    const problems = messageProblems(body);
    this.tell({ kind: 'response', id, body, status: problems.length > 0 ? 400 : 200, problems });
    if (problems.length > 0) return json(res, 400, { ok: false, error: 'invalid_blocks', errors: problems });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }
}

type Parsed = { ok: true; params: Record<string, unknown> } | { ok: false; error: 'invalid_json' | 'json_not_object' };

/**
 * The Web API's form encoding: objects and arrays arrive as JSON strings; JSON bodies are accepted too, and
 * refused as Slack refuses them (`invalid_json`, `json_not_object`).
 */
function parseParams(raw: string, contentType: string | undefined): Parsed {
  if (contentType?.includes('application/json')) return parseObject(raw || '{}');
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    params[key] = /^[[{]/.test(value) ? tryJson(value) : value;
  }
  return { ok: true, params };
}

function parseObject(raw: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'invalid_json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'json_not_object' };
  return { ok: true, params: value as Record<string, unknown> };
}

/** A channel's name: the sandbox workspace's own channels by their names, any other made up from its id. */
function channelName(id: string): string {
  return CHANNELS.find((c) => c.id === id)?.name ?? id.toLowerCase();
}

function pathOf(req: SlackRequest): string {
  return (req.url ?? '/').replace(/\?.*$/, '');
}

/** The trigger_id of a Web API call without parsing the rest (a view can be large): form or JSON body. */
function triggerIdOf(raw: string, contentType: string | undefined): string {
  if (contentType?.includes('application/json')) return /"trigger_id"\s*:\s*"([^"]*)"/.exec(raw)?.[1] ?? '';
  const found = /(?:^|&)trigger_id=([^&]*)/.exec(raw)?.[1];
  return found === undefined ? '' : decodeURIComponent(found.replace(/\+/g, ' '));
}

function tryJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function json(res: SlackResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

async function readBody(req: SlackRequest): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** users.info's time-zone fields for an IANA zone, as Slack gives them: its name, its long name, its offset now. */
function zoneFields(tz: string): { tz: string; tz_label: string; tz_offset: number } {
  const now = new Date();
  const label =
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'long' })
      .formatToParts(now)
      .find((part) => part.type === 'timeZoneName')?.value ?? tz;
  const local = new Date(now.toLocaleString('en-US', { timeZone: tz }));
  const utc = new Date(now.toLocaleString('en-US', { timeZone: 'UTC' }));
  return { tz, tz_label: label, tz_offset: Math.round((local.getTime() - utc.getTime()) / 1000) };
}
