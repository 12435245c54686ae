import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { z } from 'zod';
import {
  createLinkRequestSchema,
  createWalletRequestSchema,
  deleteCustomersRequestSchema,
  listTemplatesRequestSchema,
} from '../../platform/mint/schemas.js';
import { DEMO_CONTRACT_ID, EMPTY_CONTRACT_ID, demoTemplates, type MockTemplate } from './demo-templates.js';

export type MockRoute = 'create_link' | 'create_wallet' | 'delete_customers' | 'list_templates';

/** What the next matching request(s) get instead of a normal answer. */
export type MockFailure =
  | { mode: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { mode: 'hang' }
  | { mode: 'drop' };

export interface RecordedRequest {
  route: MockRoute | 'unknown';
  method: string;
  /** The raw path and query, exactly as received. */
  url: string;
  headers: Record<string, string | undefined>;
  body: unknown;
  /** When it arrived (milliseconds since the epoch). */
  at: number;
}

export interface MockMintOptions {
  /** The API key the service accepts (more with `acceptKey`: one per customer account). */
  apiKey: string;
  /** Other keys it accepts from the start (and again after a reset). */
  moreApiKeys?: readonly string[];
  latencyMs?: number;
  templateShape?: 'wrapped' | 'array';
  /** Base of the claim URLs the mock puts in created links. */
  publicUrl?: string;
}

interface PendingFailure {
  route: MockRoute | '*';
  failure: MockFailure;
  remaining: number;
  /** Only requests with this API key (one customer's account) take the failure. */
  apiKey: string | undefined;
}

/**
 * A stand-in for the Mint Link and Wallet service: the four endpoints of the spec, validated with the app's
 * own schemas, state in memory, and switches for latency and failures. Used by the tests and by developers.
 */
export class MockMintService {
  readonly requests: RecordedRequest[] = [];
  readonly links: Array<Record<string, unknown>> = [];
  readonly wallets: Array<{ userId: string; createdUser: boolean }> = [];
  readonly customers = new Set<string>();
  readonly contracts = new Map<string, MockTemplate[]>();
  latencyMs: number;
  /**
   * While set, every request waits for it to settle before it is answered (after `latencyMs`): a test holds the
   * answers until what it watches has happened, rather than guess a latency long enough (cleared by reset).
   */
  holdAnswers: Promise<unknown> | undefined;
  /** Requests being answered right now, and the most there were at once since the last reset. */
  inFlight = 0;
  peakInFlight = 0;
  templateShape: 'wrapped' | 'array';
  private failures: PendingFailure[] = [];
  private readonly apiKeys = new Set<string>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: MockMintOptions) {
    this.latencyMs = options.latencyMs ?? 0;
    this.holdAnswers = undefined;
    this.templateShape = options.templateShape ?? 'wrapped';
    this.acceptStartingKeys();
    this.seed();
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, resolve);
    });
    return this.url;
  }

  get url(): string {
    const address = this.server.address(); // a TCP server's: an AddressInfo (a string only for a pipe)
    if (address === null || typeof address === 'string') throw new Error('the mock Mint service is not listening');
    const { port } = address;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy(); // hanging requests included
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next `times` requests to `route` ('*' for any) fail this way; with `apiKey`, only requests with that key. */
  failNext(route: MockRoute | '*', failure: MockFailure, times = 1, apiKey?: string): void {
    this.failures.push({ route, failure, remaining: times, apiKey });
  }

  /** Accepts another API key too: the service serves many customers, each with its own key. */
  acceptKey(apiKey: string): void {
    this.apiKeys.add(apiKey);
  }

  /** Back to the seeded state, no failures, no latency, nothing recorded. */
  reset(): void {
    this.peakInFlight = this.inFlight;
    this.requests.length = 0;
    this.links.length = 0;
    this.wallets.length = 0;
    this.customers.clear();
    this.failures = [];
    this.apiKeys.clear();
    this.acceptStartingKeys();
    this.latencyMs = this.options.latencyMs ?? 0;
    this.holdAnswers = undefined;
    this.templateShape = this.options.templateShape ?? 'wrapped';
    this.seed();
  }

  requestsTo(route: MockRoute): RecordedRequest[] {
    return this.requests.filter((r) => r.route === route);
  }

  private acceptStartingKeys(): void {
    for (const key of [this.options.apiKey, ...(this.options.moreApiKeys ?? [])]) this.apiKeys.add(key);
  }

  private seed(): void {
    this.contracts.clear();
    this.contracts.set(DEMO_CONTRACT_ID, demoTemplates());
    this.contracts.set(EMPTY_CONTRACT_ID, []);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://mock');
    if (url.pathname.startsWith('/__mock/')) return this.handleControl(req, res, url);
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    res.once('close', () => (this.inFlight -= 1));

    const route = routeOf(req.method ?? '', url.pathname);
    const text = await readBody(req);
    const recorded: RecordedRequest = {
      route: route ?? 'unknown',
      method: req.method ?? '',
      url: req.url ?? '',
      headers: {
        'x-api-key': header(req, 'x-api-key'),
        'content-type': header(req, 'content-type'),
        accept: header(req, 'accept'),
      },
      body: parseJson(text) ?? (text || undefined),
      at: Date.now(),
    };
    this.requests.push(recorded);

    // A failure belongs to the request that arrives next, not to whichever wakes first from the latency.
    const failure = route ? this.takeFailure(route, header(req, 'x-api-key')) : undefined;
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    if (this.holdAnswers) await this.holdAnswers.catch(() => undefined);
    if (!route) return send(res, 404, { message: `No route for ${req.method} ${url.pathname}` });

    if (failure?.mode === 'hang') return; // never answers; close() ends it
    if (failure?.mode === 'drop') {
      req.socket.destroy();
      return;
    }
    if (failure?.mode === 'status')
      return send(res, failure.status, failure.body ?? { message: `Mock failure ${failure.status}` }, failure.headers);

    const apiKey = header(req, 'x-api-key');
    if (apiKey === undefined || !this.apiKeys.has(apiKey))
      return send(res, 401, { message: 'Invalid or missing API key' });

    if (route === 'list_templates') return this.listTemplates(res, url);
    if (!/^application\/json\b/i.test(header(req, 'content-type') ?? '')) {
      return send(res, 415, { message: 'Content-Type must be application/json' });
    }
    const body = parseJson(text);
    if (body === undefined) return send(res, 400, { message: 'Body is not valid JSON' });
    if (route === 'create_link') return this.createLink(res, body);
    if (route === 'create_wallet') return this.createWallet(res, body);
    return this.deleteCustomers(res, body);
  }

  private createLink(res: ServerResponse, body: unknown): void {
    const link = validated(res, createLinkRequestSchema, body);
    if (!link) return;
    const id = `lnk_${randomUUID().slice(0, 8)}`;
    const publicUrl = this.options.publicUrl ?? 'https://mint.example.com';
    const created = { id, url: `${publicUrl}/claim/${id}`, ...link, createdAt: new Date().toISOString() };
    this.links.push(created);
    for (const customer of link.customerId ?? []) this.customers.add(customer);
    send(res, 201, created);
  }

  private createWallet(res: ServerResponse, body: unknown): void {
    const wallet = validated(res, createWalletRequestSchema, body);
    if (!wallet) return;
    const userId = wallet.userId ?? `cus_${randomUUID().slice(0, 8)}`;
    this.wallets.push({ userId, createdUser: wallet.userId === undefined });
    this.customers.add(userId);
    res.writeHead(201).end(); // the spec: 201, no content
  }

  private deleteCustomers(res: ServerResponse, body: unknown): void {
    const ids = validated(res, deleteCustomersRequestSchema, body);
    if (!ids) return;
    const deleted = ids.filter((id) => this.customers.delete(id));
    send(res, 200, { deleted, notFound: ids.filter((id) => !deleted.includes(id)) });
  }

  private listTemplates(res: ServerResponse, url: URL): void {
    const rawId = url.pathname.slice('/v1/nft/template/'.length);
    const numberParam = (name: string) => (url.searchParams.has(name) ? Number(url.searchParams.get(name)) : undefined);
    const query = validated(res, listTemplatesRequestSchema, {
      contractId: decodeURIComponent(rawId),
      offset: numberParam('offset'),
      limit: numberParam('limit'),
      orderBy: url.searchParams.get('orderBy') ?? undefined,
    });
    if (!query) return;
    const templates = this.contracts.get(query.contractId);
    if (!templates) return send(res, 404, { message: `Contract ${query.contractId} not found` });
    const ordered = query.orderBy === 'asc' ? templates : [...templates].reverse();
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 10;
    const items = ordered.slice(offset, offset + limit);
    send(res, 200, this.templateShape === 'array' ? items : { items, total: templates.length, offset, limit });
  }

  private takeFailure(route: MockRoute, apiKey: string | undefined): MockFailure | undefined {
    const pending = this.failures.find(
      (f) => (f.route === route || f.route === '*') && (f.apiKey === undefined || f.apiKey === apiKey),
    );
    if (!pending) return undefined;
    pending.remaining -= 1;
    if (pending.remaining <= 0) this.failures.splice(this.failures.indexOf(pending), 1);
    return pending.failure;
  }

  /** Control routes for developers and multi-process tests: behaviour, recorded requests, reset. */
  private async handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method === 'GET' && url.pathname === '/__mock/requests') return send(res, 200, this.requests);
    if (req.method === 'GET' && url.pathname === '/__mock/stats') {
      const byRoute: Record<string, number> = {};
      for (const r of this.requests) byRoute[r.route] = (byRoute[r.route] ?? 0) + 1;
      return send(res, 200, { inFlight: this.inFlight, peakInFlight: this.peakInFlight, requests: byRoute });
    }
    if (req.method === 'POST' && url.pathname === '/__mock/reset') {
      this.reset();
      return send(res, 200, { ok: true });
    }
    if (req.method === 'POST' && url.pathname === '/__mock/behaviour') {
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the mock's control body, written by the tests and docs that drive it; a bad one fails that test
      const body = parseJson(await readBody(req)) as {
        latencyMs?: number;
        templateShape?: 'wrapped' | 'array';
        fail?: { route?: MockRoute | '*'; times?: number } & MockFailure;
      };
      if (typeof body?.latencyMs === 'number') this.latencyMs = body.latencyMs;
      if (body?.templateShape === 'wrapped' || body?.templateShape === 'array') this.templateShape = body.templateShape;
      if (body?.fail) {
        const { route = '*', times = 1, ...failure } = body.fail;
        this.failNext(route, failure, times);
      }
      return send(res, 200, {
        latencyMs: this.latencyMs,
        templateShape: this.templateShape,
        pendingFailures: this.failures.length,
      });
    }
    send(res, 404, { message: 'Unknown control route' });
  }
}

function routeOf(method: string, path: string): MockRoute | undefined {
  if (method === 'POST' && path === '/v1/link') return 'create_link';
  if (method === 'POST' && path === '/v1/wallet') return 'create_wallet';
  if (method === 'PATCH' && path === '/v1/customer/delete') return 'delete_customers';
  // Exactly one segment after the prefix: an unencoded "../x" would not match.
  if (method === 'GET' && /^\/v1\/nft\/template\/[^/]+$/.test(path)) return 'list_templates';
  return undefined;
}

function validated<S extends z.ZodType>(res: ServerResponse, schema: S, body: unknown): z.output<S> | undefined {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  send(res, 400, { message });
  return undefined;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const all = { 'content-type': 'application/json', ...headers };
  // A failure switched on with a non-JSON content type (text, HTML) gets its body as it is.
  const raw = typeof body === 'string' && !all['content-type'].includes('json');
  res.writeHead(status, all).end(raw ? body : JSON.stringify(body));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const bytes: unknown = chunk; // a request without an encoding set yields Buffers, typed any
    if (Buffer.isBuffer(bytes)) chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
