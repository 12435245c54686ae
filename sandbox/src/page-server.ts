import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FakeSlack } from './fake-slack.js';
import { z } from 'zod';
import { pageActionSchema, type Interactions } from './interactions.js';
import type { ManifestFacts } from './manifest-facts.js';
import { mrkdwnHtml, plainTextHtml, type Directory } from './mrkdwn-html.js';
import { APPROVALS, CHANNELS, PEOPLE, TEAM_NAME, WORKSPACE_URL, appDmId, personById, userGroupById } from './people.js';
import type { Json, SandboxMessage, Workspace } from './workspace.js';
import { addressedToLoopback, notLoopbackRefusal } from './loopback-host.js';

/*
 * The sandbox's page: plain HTML, CSS and JavaScript (sandbox/page/), the state each person sees as JSON
 * with every text already turned into safe HTML, live updates over Server-Sent Events, the page's actions,
 * files chosen on the page (hosted as Slack hosts a user's file), and downloads of the files the app shared.
 */

const PAGE_DIR = new URL('../../sandbox/page/', import.meta.url);
const ASSETS: Record<string, string> = {
  '/': 'index.html',
  '/app.js': 'app.js',
  '/blocks.js': 'blocks.js',
  '/style.css': 'style.css',
};
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};
/** A message's permalink in the sandbox's workspace: its conversation and its ts without the dot. */
const PERMALINK = new RegExp(`^${WORKSPACE_URL.replace(/[.]/g, '\\.')}archives/([CDG][A-Z0-9]+)/p(\\d{16})$`);
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** An upload's JSON: its bytes in base64 (4 characters for every 3 bytes) and a little more. */
const MAX_UPLOAD_BODY = Math.ceil(MAX_UPLOAD_BYTES / 3) * 4 + 4096;
const MAX_ACTION_BYTES = 1024 * 1024;
/** The header the page's own script sends with every action: a page of another site cannot send it unasked. */
const OWN_PAGE_HEADER = 'x-sandbox';

export interface PageServerDeps {
  workspace: Workspace;
  slack: FakeSlack;
  interactions: Interactions;
  manifest: ManifestFacts;
  /** One line for each request refused or failed (the terminal, in `npm run sandbox`). */
  log: (line: string) => void;
}

export class PageServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly streams = new Set<ServerResponse>();
  private readonly directory: Directory = {
    user: (id) => personById(id)?.name ?? (id === 'U0BOT0001' ? 'Mintlink' : undefined),
    channel: (id) => CHANNELS.find((c) => c.id === id)?.name,
    group: (id) => userGroupById(id)?.handle,
    permalink: (url) => {
      const found = PERMALINK.exec(url);
      const conversation = found?.[1] ?? '';
      return found && (CHANNELS.some((c) => c.id === conversation) || conversation.startsWith('D'))
        ? `/archives/${conversation}/p${found[2]}`
        : undefined;
    },
  };

  constructor(private readonly deps: PageServerDeps) {
    // Whatever goes wrong with one request (a body cut off, a bug) is answered and logged: the sandbox goes on.
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        deps.log(
          `sandbox page: ${req.method} ${(req.url ?? '/').replace(/\?.*$/, '')} failed: ${(error as Error).message}`,
        );
        if (!res.headersSent && !res.destroyed)
          send(res, 500, { ok: false, error: 'the sandbox failed on this request: its terminal says why' });
        else res.destroy();
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    deps.workspace.onChange(() => {
      for (const stream of this.streams) stream.write(`event: change\ndata: ${deps.workspace.version}\n\n`);
    });
  }

  /** Listens on host:port; rejects with the listen error (EADDRINUSE says the port is taken). */
  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.url;
  }

  get url(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address.includes(':') ? `[${address}]` : address}:${port}/`;
  }

  async close(): Promise<void> {
    for (const stream of this.streams) stream.end();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page of another site must not drive the sandbox through the browser (DNS rebinding): loopback names only.
    if (!addressedToLoopback(req, this.listenHost())) {
      this.deps.log(`sandbox page: refused ${req.method ?? 'GET'}: ${notLoopbackRefusal('the page', req)}`);
      req.resume();
      return send(res, 403, { error: 'unknown Host' });
    }
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const asset = ASSETS[url.pathname];
    if (req.method === 'GET' && asset) return this.serveAsset(asset, res);
    // A permalink opened on the page: the page itself, which shows that message.
    if (req.method === 'GET' && url.pathname.startsWith('/archives/')) return this.serveAsset('index.html', res);
    if (req.method === 'GET' && url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    if (req.method === 'GET' && url.pathname === '/api/bootstrap') return send(res, 200, this.bootstrap());
    if (req.method === 'GET' && url.pathname === '/api/state')
      return send(res, 200, this.state(url.searchParams.get('as') ?? ''));
    if (req.method === 'GET' && url.pathname === '/api/events') return this.stream(req, res);
    if (req.method === 'POST' && (url.pathname === '/api/act' || url.pathname === '/api/upload')) {
      const refused = this.refusal(req);
      if (refused) {
        this.deps.log(`sandbox page: refused POST ${url.pathname} (${refused.status}): ${refused.why}`);
        req.resume();
        return send(res, refused.status, { ok: false, error: `refused: ${refused.error}` });
      }
      return url.pathname === '/api/act' ? this.act(req, res) : this.upload(req, res);
    }
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) return this.download(url.pathname, res);
    send(res, 404, { error: 'not found' });
  }

  /**
   * Why a request that changes something is refused, if it is. The page drives the app as anyone in the
   * switcher, so only the page's own script may: the browser names the page that sent a request (Origin,
   * Sec-Fetch-Site), and a page of another site can send neither JSON nor a custom header without asking
   * first (a CORS preflight, which this server never allows), whereas a form or a simple fetch needs no leave.
   */
  private refusal(req: IncomingMessage): { status: 403 | 415; error: string; why: string } | undefined {
    const origin = req.headers.origin;
    // The Host header was checked already: the page's own origin is this very address.
    if (origin !== undefined && origin !== `http://${req.headers.host}`)
      return {
        status: 403,
        error: `the sandbox takes actions only from its own page, and this request comes from ${origin}`,
        why: `Origin ${origin}`,
      };
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      return {
        status: 403,
        error: `the sandbox takes actions only from its own page, and this request comes from another site (Sec-Fetch-Site: ${site})`,
        why: `Sec-Fetch-Site ${site}, no Origin`,
      };
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type))
      return {
        status: 415,
        error: `the sandbox takes only JSON here (Content-Type: application/json), and this request sends ${type || 'no Content-Type'}`,
        why: `Content-Type ${type || 'missing'}, Origin ${origin ?? 'none'}`,
      };
    if (req.headers[OWN_PAGE_HEADER] !== '1')
      return {
        status: 403,
        error: 'the sandbox takes actions only from its own page, which sends the header X-Sandbox: 1',
        why: `no X-Sandbox header, Origin ${origin ?? 'none'}`,
      };
    return undefined;
  }

  private listenHost(): string {
    const address = this.server.address() as AddressInfo | null;
    return address?.address ?? '';
  }

  private async serveAsset(name: string, res: ServerResponse): Promise<void> {
    const body = await readFile(new URL(name, PAGE_DIR));
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
    res
      .writeHead(200, {
        'content-type': type,
        'cache-control': 'no-store',
        // frame-ancestors and X-Frame-Options: no other site may show the page in a frame and steer clicks on it.
        'content-security-policy':
          "default-src 'self'; img-src 'self' https: data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
      })
      .end(body);
  }

  private bootstrap(): Json {
    const { manifest } = this.deps;
    return {
      team: TEAM_NAME,
      appName: manifest.appName,
      people: PEOPLE,
      channels: CHANNELS,
      approvalChannel: APPROVALS.id,
      commandUsage: manifest.commandUsage,
      commandDescription: manifest.commandDescription,
      shortcuts: manifest.shortcuts,
      steps: manifest.steps,
    };
  }

  private state(user: string): Json {
    const { workspace } = this.deps;
    if (!personById(user)) return { error: 'unknown person' };
    const conversations = workspace.conversationsOf(user).map((id) => {
      const channel = CHANNELS.find((c) => c.id === id);
      return {
        id,
        name: channel?.name ?? this.deps.manifest.appName,
        kind: channel ? 'channel' : 'app',
        topic: channel?.topic ?? '',
        messages: this.threaded(workspace.visibleMessages(user, id)),
      };
    });
    const home = workspace.homes.get(user);
    return {
      version: workspace.version,
      me: user,
      dm: appDmId(user),
      conversations,
      home: home ? { id: user, hash: home.hash, view: this.decorate(home.view) } : null,
      modals: workspace.modalStack(user).map((m) => ({
        viewId: m.viewId,
        hash: m.hash,
        view: this.decorate(m.view),
        errors: m.errors ?? {},
        busy: m.busy === true,
      })),
      notices: workspace.notices.get(user) ?? [],
      violations: workspace.violations,
      runs: [...workspace.runs.values()].filter((r) => r.user === user).reverse(),
    };
  }

  /** Top-level messages, each with its thread's replies. */
  private threaded(messages: SandboxMessage[]): Json[] {
    const top: Json[] = [];
    const byTs = new Map<string, Json>();
    for (const message of messages) {
      const shown = this.message(message);
      if (message.threadTs && message.threadTs !== message.ts) {
        const parent = byTs.get(message.threadTs);
        if (parent) (parent.replies as Json[]).push(shown);
        continue;
      }
      shown.replies = [];
      byTs.set(message.ts, shown);
      top.push(shown);
    }
    return top;
  }

  private message(message: SandboxMessage): Json {
    const person = personById(message.from);
    return {
      ts: message.ts,
      channel: message.channel,
      from: message.from,
      fromName: person?.name ?? (message.from === 'USLACKBOT' ? 'Slackbot' : this.deps.manifest.appName),
      isApp: !person,
      color: person?.color ?? '#1f3a5f',
      html: message.text !== undefined ? mrkdwnHtml(message.text, this.directory) : '',
      ...(message.blocks ? { blocks: this.decorate(message.blocks) } : {}),
      ephemeral: message.ephemeralFor !== undefined,
      edited: message.edited === true,
      at: message.at,
      ...(message.file
        ? { file: { ...message.file, url: `/files/${message.file.id}/${encodeURIComponent(message.file.name)}` } }
        : {}),
    };
  }

  /**
   * A copy of blocks (or a view) with every text object given its HTML, as Slack would show it. The page sets
   * `html` keys as markup, so only this server writes them: any the app sent is dropped.
   */
  private decorate<T>(value: T): T {
    const walk = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map((child) => walk(child));
      if (typeof node !== 'object' || node === null) return node;
      const object = node as Json;
      const copy: Json = {};
      for (const [key, child] of Object.entries(object)) if (key !== 'html') copy[key] = walk(child);
      if (typeof object.text === 'string' && (object.type === 'mrkdwn' || object.type === 'plain_text'))
        copy.html =
          object.type === 'mrkdwn'
            ? mrkdwnHtml(object.text, this.directory)
            : plainTextHtml(object.text, object.emoji !== false);
      if (object.type === 'markdown' && typeof object.text === 'string')
        copy.html = mrkdwnHtml(object.text, this.directory);
      return copy;
    };
    return walk(value) as T;
  }

  private stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write(`retry: 1000\nevent: change\ndata: ${this.deps.workspace.version}\n\n`);
    this.streams.add(res);
    req.on('close', () => this.streams.delete(res));
  }

  private async act(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, MAX_ACTION_BYTES);
    if (raw === undefined) return send(res, 413, { ok: false, error: 'too large' });
    const body = parseJson(raw);
    if (!body.ok) return this.badRequest(req, res, 'invalid_json', 'not JSON');
    const action = pageActionSchema.safeParse(body.value);
    if (!action.success) {
      const problem = describeIssue(action.error.issues[0]);
      return this.badRequest(req, res, `invalid action: ${problem}`, problem);
    }
    // The options a block_suggestion brought back are shown as Slack shows them: their text decorated too.
    send(res, 200, this.decorate(await this.deps.interactions.act(action.data)));
  }

  private badRequest(req: IncomingMessage, res: ServerResponse, error: string, why: string): void {
    this.deps.log(`sandbox page: refused ${req.method} ${req.url ?? '/'} (400): ${why}`);
    send(res, 400, { ok: false, error });
  }

  /**
   * A file chosen on the page becomes a file Slack hosts for that person (a file_input's value). It comes as
   * JSON like every action, `{ as, name, content }` with the bytes in base64, so it passes the same checks.
   */
  private async upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, MAX_UPLOAD_BODY);
    if (raw === undefined) return send(res, 413, { ok: false, error: `files up to ${MAX_UPLOAD_BYTES / 1048576} MB` });
    const body = parseJson(raw);
    if (!body.ok) return this.badRequest(req, res, 'invalid_json', 'not JSON');
    const parsed = uploadSchema.safeParse(body.value);
    if (!parsed.success) {
      const problem = describeIssue(parsed.error.issues[0]);
      return this.badRequest(req, res, `invalid upload: ${problem}`, problem);
    }
    const { as: user, name } = parsed.data;
    if (!personById(user)) return send(res, 400, { ok: false, error: 'unknown person' });
    const content = Buffer.from(parsed.data.content, 'base64');
    if (content.length > MAX_UPLOAD_BYTES)
      return send(res, 413, { ok: false, error: `files up to ${MAX_UPLOAD_BYTES / 1048576} MB` });
    const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? 'text';
    const file = this.deps.slack.hostFile({
      content,
      name,
      user,
      filetype: extension,
      mimetype: extension === 'csv' ? 'text/csv' : 'text/plain',
    });
    send(res, 200, { file });
  }

  /** Files the app shared (files.completeUploadExternal) and files people chose, as a download. */
  private download(path: string, res: ServerResponse): void {
    const id = path.split('/')[2] ?? '';
    const upload = this.deps.slack.uploads.get(id);
    const hosted = this.deps.slack.hostedFiles.get(id);
    const content = upload?.completed ? upload.content : hosted?.content;
    const name = upload?.filename ?? hosted?.name ?? 'file';
    if (!content) return send(res, 404, { error: 'no such file' });
    res
      .writeHead(200, {
        'content-type': name.endsWith('.csv') ? 'text/csv; charset=utf-8' : 'application/octet-stream',
        'content-disposition': `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`,
        'content-length': String(content.length),
        'x-content-type-options': 'nosniff',
      })
      .end(content);
  }
}

/** An upload from the page: who shares it, its name, its bytes in base64. */
const uploadSchema = z.object({
  as: z.string().min(1),
  name: z.string().min(1).max(200),
  content: z.base64(),
});

function parseJson(raw: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/** The field a schema refused, and why: `text: Invalid input: expected string, received undefined`. */
function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'not what the page sends';
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
