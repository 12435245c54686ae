import { performance } from 'node:perf_hooks';
import { Pool, RetryAgent, type Dispatcher, type RetryHandler, type buildConnector } from 'undici';
import type { z } from 'zod';
import type { Logger } from '../ops/telemetry/create-logger.js';
import { createSecretScrubber } from '../ops/telemetry/secret-scrubber.js';
import type { Metrics } from '../ops/telemetry/metrics.js';
import { MintCircuit, type CircuitPosition, type MintCircuitOptions } from './circuit.js';
import { MintApiError, kindForStatus, serviceMessageFromBody } from './mint-api-error.js';
import { PRE_SEND_ERROR_CODES, parseRetryAfter, retryDecision, type RetryTimer } from './retry-policy.js';
import {
  createLinkRequestSchema,
  createWalletRequestSchema,
  deleteCustomersRequestSchema,
  listTemplatesRequestSchema,
  type CreateLinkRequest,
  type CreateWalletRequest,
  type DeleteCustomersRequest,
  type ListTemplatesRequest,
} from './schemas.js';
import { ServicePause } from './service-pause.js';
import { NonPublicAddressError } from './public-address.js';
import type { MintCallOutcome } from '../store/mint-call-outcomes.js';
import { SpanKind, inSpan } from '../ops/telemetry/tracing.js';
import { fieldOf, numberFieldOf, stringFieldOf } from '../unknown-fields.js';

export type MintOperation = 'create_link' | 'create_wallet' | 'delete_customers' | 'list_templates';

/** How the service last answered this process, and whether calls are held back: for status displays. */
export interface MintServiceStatus {
  lastAnsweredAt: Date | undefined;
  lastFailure: { at: Date; kind: MintApiError['kind'] } | undefined;
  /** 'open': the service has been failing and calls fail at once, without being sent. */
  readonly circuit: CircuitPosition;
  /** Set while the service's own request to wait (429, or 503 with Retry-After) holds every call back. */
  readonly pausedUntil?: Date | undefined;
}

export interface MintApiClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Budget for one operation, retries included. */
  timeoutMs: number;
  scrub: (text: string) => string;
  metrics?: Metrics;
  logger?: Logger;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** When the circuit opens and how long it stays open; tests use small numbers. */
  breaker?: Partial<MintCircuitOptions>;
  /** How long to hold calls back after a 429 that has no Retry-After. */
  defaultPauseMs?: number;
  /** Milliseconds since the epoch, for the service's requests to wait; tests pass a clock they move by hand. */
  now?: () => number;
  /** How a retry waits its backoff or Retry-After (setTimeout by default); tests end the wait when they choose. */
  retryTimer?: RetryTimer;
  /**
   * Connections to the service's origin shared with other clients (one per Mint account, say): this client
   * then does not close them. Without it, the client keeps a pool of its own (see mintConnectionPool).
   */
  connections?: Dispatcher;
  /** Told the status of every answer the service gives (after retries): who keeps track of a refused key. */
  onServiceAnswer?: (status: number) => void;
  /**
   * Told how every call that was sent ended, as far as the key goes (calls held back by a pause or an open
   * circuit were not sent, and are not told): what the setup doctor reports as the last real call.
   */
  onCallEnded?: (outcome: MintCallOutcome, status: number | undefined) => void;
  /** What a person can do when the service refuses this key (401/403); the operator's MINT_API_KEY by default. */
  refusedKeyAdvice?: string;
  /** What a person can do when the service's address is not a public one (see publicOnlyConnector). */
  refusedAddressAdvice?: string;
}

/** Far more than any answer of the spec's four operations; beyond it undici ends the response. */
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const DEFAULT_PAUSE_MS = 5_000;

/**
 * Connections to the Mint service at `origin`, as a client opens them: one pool may serve several clients.
 * `connect`: how connections are opened (publicOnlyConnector for a URL a workspace's admin typed).
 */
export function mintConnectionPool(origin: string, connect?: buildConnector.connector): Pool {
  return new Pool(origin, { maxResponseSize: MAX_RESPONSE_BYTES, ...(connect ? { connect } : {}) });
}

/**
 * The only code that talks to the Mint service. One instance serves one API key (the operator's, or one
 * workspace's Mint account), so the service's signals about that key (requests to wait, outages) hold back
 * every operation made with it, and no other key's. It does not limit how many calls are in flight: the app
 * bounds its work as a whole, and a second, smaller bound here would refuse work that the service could do.
 */
export class MintApiClient {
  private readonly dispatcher: Dispatcher;
  private readonly ownsConnections: boolean;
  /** The app's scrubber, and this client's own key in every spelling: the service may echo the key back. */
  private readonly scrub: (text: string) => string;
  private readonly basePath: string;
  private readonly deadlines = new WeakMap<AbortSignal, number>();
  private readonly pause: ServicePause;
  private readonly circuit: MintCircuit;
  readonly status: MintServiceStatus;

  constructor(private readonly options: MintApiClientOptions) {
    const base = new URL(options.baseUrl);
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.pause = new ServicePause({
      defaultPauseMs: options.defaultPauseMs ?? DEFAULT_PAUSE_MS,
      now: options.now ?? Date.now,
    });
    this.circuit = new MintCircuit(options.breaker, options.logger);
    this.status = serviceStatus(this.pause, this.circuit);
    const ownKey = createSecretScrubber([options.apiKey]);
    this.scrub = (text) => options.scrub(ownKey(text));
    this.ownsConnections = options.connections === undefined;
    this.dispatcher = new RetryAgent(options.connections ?? mintConnectionPool(base.origin), {
      throwOnError: false, // after the last try, hand back the response itself so its message can be read
      retry: this.retryNoting(
        retryDecision({
          maxRetries: options.maxRetries ?? 2,
          baseDelayMs: options.retryBaseDelayMs ?? 250,
          remainingMs: (signal) =>
            ((signal instanceof AbortSignal ? this.deadlines.get(signal) : undefined) ?? Infinity) - Date.now(),
          retryTimer: options.retryTimer,
        }),
      ),
    });
  }

  /** POST /v1/link: creates a mint link; 201 with a JSON object whose fields the spec does not show. */
  async createLink(link: CreateLinkRequest): Promise<MintRecord> {
    const body = validate(createLinkRequestSchema, link);
    const response = await this.call('create_link', 'POST', '/v1/link', body);
    return expectRecord(response);
  }

  /** POST /v1/wallet: 201 with no content; without userId the service creates a new user. */
  async createWallet(wallet: CreateWalletRequest = {}): Promise<MintRecord | undefined> {
    const body = validate(createWalletRequestSchema, wallet);
    const response = await this.call('create_wallet', 'POST', '/v1/wallet', body);
    return response === undefined ? undefined : expectRecord(response);
  }

  /** PATCH /v1/customer/delete with a JSON array of customer ids; 200 with a JSON object. */
  async deleteCustomers(customerIds: DeleteCustomersRequest): Promise<MintRecord> {
    const body = validate(deleteCustomersRequestSchema, customerIds);
    const response = await this.call('delete_customers', 'PATCH', '/v1/customer/delete', body);
    return response === undefined ? {} : expectRecord(response);
  }

  /** GET /v1/nft/template/{contractId}: one page of a contract's templates. */
  async listTemplates(request: ListTemplatesRequest): Promise<TemplatePage> {
    const { contractId, ...query } = validate(listTemplatesRequestSchema, request);
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const path = `/v1/nft/template/${encodeURIComponent(contractId)}${search.size > 0 ? `?${search.toString()}` : ''}`;
    const response = await this.call('list_templates', 'GET', path, undefined);
    const page = parseTemplatePage(response);
    if (!page) throw new MintApiError('bad_response', 'The Mint service answered without a list of templates.');
    return page;
  }

  /** Closes the client's connections (shared ones are their owner's to close). */
  async close(): Promise<void> {
    if (this.ownsConnections) await this.dispatcher.close();
  }

  /** Sends one operation unless the service asked for a pause or is known to be down. */
  private async call(
    operation: MintOperation,
    method: Dispatcher.HttpMethod,
    path: string,
    body: unknown,
  ): Promise<unknown> {
    const refusal = this.pause.refusal() ?? this.circuit.refusal();
    if (refusal) {
      this.options.metrics?.mintApiCalls.inc({ operation, status: 'not_sent' });
      throw refusal;
    }
    // One span per operation (its retries included), a child of the request that asked for it.
    return inSpan(
      `mint ${operation}`,
      SpanKind.CLIENT,
      { 'mint.operation': operation, 'http.request.method': method },
      () => this.circuit.run(() => this.send(operation, method, path, body)),
    );
  }

  private async send(
    operation: MintOperation,
    method: Dispatcher.HttpMethod,
    path: string,
    body: unknown,
  ): Promise<unknown> {
    const started = performance.now();
    // Not AbortSignal.timeout: its timer would outlive the call by up to the whole budget, under load by thousands.
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(timedOut()), this.options.timeoutMs);
    const { signal } = budget;
    this.deadlines.set(signal, Date.now() + this.options.timeoutMs);
    let status = 'network';
    try {
      const response = await this.dispatcher.request({
        path: this.basePath + path,
        method,
        signal,
        headers: {
          'x-api-key': this.options.apiKey,
          accept: '*/*',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = String(response.statusCode);
      if (response.statusCode < 500) this.status.lastAnsweredAt = new Date(); // it answered, even if to refuse
      this.options.onServiceAnswer?.(response.statusCode);
      this.options.onCallEnded?.(callOutcome(response.statusCode), response.statusCode);
      const text = await response.body.text(); // undici ends it past maxResponseSize
      return this.interpret(response.statusCode, response.headers, text);
    } catch (error) {
      const failure = this.toMintApiError(error, signal, method !== 'GET');
      if (failure.status === undefined) {
        status = failure.kind;
        this.options.onCallEnded?.('unavailable', undefined);
      }
      if (!['rejected', 'not_found'].includes(failure.kind)) {
        this.status.lastFailure = { at: new Date(), kind: failure.kind };
      }
      throw failure;
    } finally {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      this.options.metrics?.mintApiCalls.inc({ operation, status });
      this.options.metrics?.mintApiDuration.observe({ operation, status }, seconds);
      this.options.logger?.debug({ operation, status, ms: Math.round(seconds * 1000) }, 'mint api call');
    }
  }

  /**
   * The retry decision, first taking note of each answer it is shown (every answer from 300 up, with
   * throwOnError off): a 429 that a GET absorbs by trying again still asks the whole app to wait.
   */
  private retryNoting(decide: RetryHandler.RetryCallback): RetryHandler.RetryCallback {
    return (error, context, callback) => {
      const statusCode = numberFieldOf(error, 'statusCode');
      const retryAfter = fieldOf(error, 'headers', 'retry-after');
      if (statusCode !== undefined)
        this.pause.noteAnswer(statusCode, parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : undefined));
      decide(error, context, callback);
    };
  }

  private interpret(status: number, headers: Dispatcher.ResponseData['headers'], text: string): unknown {
    const contentType = headerValue(headers['content-type']);
    if (status >= 200 && status < 300) {
      if (text.trim() === '') return undefined;
      try {
        // The key never travels further than this client, even when an answer carries it (in a link's URL).
        return JSON.parse(this.scrub(text));
      } catch {
        throw new MintApiError('bad_response', 'The Mint service answered with something that is not JSON.', {
          status,
          outcomeUnknown: true,
        });
      }
    }
    const kind = kindForStatus(status);
    const serviceMessage = serviceMessageFromBody(text, contentType, this.scrub);
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    // Noted already by the retry decision, as undici works today; the final answer must not depend on that.
    this.pause.noteAnswer(status, retryAfterMs);
    // A redirect is never followed: the key would go wherever the answer points, a private address included.
    const redirect = status >= 300 && status < 400 ? ' (a redirect, which Mintlink does not follow)' : '';
    throw new MintApiError(
      kind,
      `The Mint service answered ${status}${redirect}${serviceMessage ? `: ${serviceMessage}` : '.'}`,
      {
        status,
        ...(serviceMessage ? { serviceMessage } : {}),
        ...(retryAfterMs !== undefined ? { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) } : {}),
        ...(kind === 'unauthorized' && this.options.refusedKeyAdvice ? { advice: this.options.refusedKeyAdvice } : {}),
      },
    );
  }

  /** `changes`: the request is one that changes something (not GET), so an unclear end matters. */
  private toMintApiError(error: unknown, signal: AbortSignal, changes: boolean): MintApiError {
    if (error instanceof MintApiError) return error;
    if (error instanceof NonPublicAddressError) {
      const message = `${error.message}, and Mintlink sends a workspace’s key to public addresses only.`;
      const advice = this.options.refusedAddressAdvice;
      return new MintApiError('network', message, { addressRefused: true, ...(advice ? { advice } : {}) });
    }
    const seconds = this.options.timeoutMs / 1000;
    const code = stringFieldOf(error, 'code');
    if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      const message = `The Mint service did not answer within ${seconds} s.`;
      return new MintApiError('timeout', message, { outcomeUnknown: changes });
    }
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
      const message = 'The Mint service answered with more data than expected.';
      return new MintApiError('bad_response', message, { outcomeUnknown: changes });
    }
    const reason = code ?? (error instanceof Error ? error.message : 'unknown error');
    const neverSent = code !== undefined && PRE_SEND_ERROR_CODES.includes(code);
    const message = `Could not reach the Mint service (${this.scrub(reason)}).`;
    return new MintApiError('network', message, { outcomeUnknown: changes && !neverSent });
  }
}

/** What an answer says of the key: 401/403 refuse it, a 5xx says nothing, any other answer took it. */
function callOutcome(status: number): MintCallOutcome {
  if (status === 401 || status === 403) return 'refused';
  return status >= 500 ? 'unavailable' : 'accepted';
}

function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'} ${i.message}`).join('; ');
  throw new MintApiError('rejected', `Not sent to the Mint service: ${problems}.`);
}

function expectRecord(value: unknown): MintRecord {
  if (isRecord(value)) return value;
  const message = 'The Mint service answered with JSON that is not an object.';
  throw new MintApiError('bad_response', message, { outcomeUnknown: true });
}

function timedOut(): DOMException {
  return new DOMException('The Mint operation timed out.', 'TimeoutError');
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Live: the answers are recorded by the client, the rest is read when a display asks. */
function serviceStatus(pause: ServicePause, circuit: MintCircuit): MintServiceStatus {
  return {
    lastAnsweredAt: undefined,
    lastFailure: undefined,
    get circuit() {
      return circuit.position;
    },
    get pausedUntil() {
      return pause.pausedUntil;
    },
  };
}

/*
 * The spec shows no response fields, so responses are read tolerantly: any JSON object is kept whole,
 * and nothing is assumed about its fields.
 */

export type MintRecord = Record<string, unknown>;

export interface TemplatePage {
  /** The templates as the service sent them (usually objects; their fields are not specified). */
  items: unknown[];
  /** Total number of templates of the contract, when the service gives one. */
  total: number | undefined;
}

export function isRecord(value: unknown): value is MintRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names a wrapper object commonly gives its list and its count; any array is accepted when none match. */
const LIST_KEYS = ['items', 'data', 'templates', 'results', 'rows', 'records', 'docs', 'content', 'list'];
const TOTAL_KEYS = ['total', 'totalCount', 'total_count', 'totalItems', 'totalResults', 'totalDocs', 'count'];
const META_KEYS = ['meta', 'pagination', 'page', 'paging'];

/** Accepts a bare array or an object wrapping an array (one level of nesting, e.g. `{data: {items}}`). */
export function parseTemplatePage(body: unknown): TemplatePage | undefined {
  if (Array.isArray(body)) return { items: body, total: undefined };
  if (!isRecord(body)) return undefined;
  const items = findList(body) ?? firstNested(body, findList);
  if (!items) return undefined;
  const total = findTotal(body, items.length) ?? firstNested(body, (o) => findTotal(o, items.length));
  return { items, total };
}

const isList = (value: unknown): value is unknown[] => Array.isArray(value);

function findList(object: MintRecord): unknown[] | undefined {
  for (const key of LIST_KEYS) {
    const value = object[key];
    if (isList(value)) return value;
  }
  return Object.values(object).find((value) => Array.isArray(value));
}

function findTotal(object: MintRecord, pageLength: number): number | undefined {
  for (const key of TOTAL_KEYS) {
    const raw = object[key];
    const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    // A "total" smaller than the page it came with is a page count, not a total.
    if (typeof value === 'number' && Number.isInteger(value) && value >= pageLength) return value;
  }
  return undefined;
}

function firstNested<T>(object: MintRecord, read: (nested: MintRecord) => T | undefined): T | undefined {
  for (const key of [...LIST_KEYS, ...META_KEYS]) {
    const nested = object[key];
    if (isRecord(nested)) {
      const found = read(nested);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * A few of a record's fields as text, for showing an answer whose fields the spec does not give: values as
 * they are (cut), lists by their length, nested objects elided.
 */
export function recordHighlights(record: MintRecord, max = 6): Array<[string, string]> {
  return Object.entries(record)
    .slice(0, max)
    .map(([key, value]): [string, string] => {
      if (Array.isArray(value)) return [key, `${value.length} item${value.length === 1 ? '' : 's'}`];
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
        return [key, String(value).slice(0, 80)];
      return [key, '…'];
    });
}

/** Names the delete answer may give the customers it did not find (the spec shows no fields). */
const NOT_FOUND_KEY = /^(not[_-]?found|missing)$/i;

/**
 * How many of `sent` customers a delete answer says were not found: a list or a count under a "not found"
 * field (`notFound`, `not_found`, `missing`), capped at what was sent (0 for an empty list); undefined when
 * the answer has no such field, or one that is neither.
 */
export function notFoundCount(answer: MintRecord, sent: number): number | undefined {
  for (const [key, value] of Object.entries(answer)) {
    if (!NOT_FOUND_KEY.test(key)) continue;
    const count = Array.isArray(value) ? value.length : value;
    if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return Math.min(count, sent);
  }
  return undefined;
}
