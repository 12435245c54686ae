import type { ExpectedFailure } from '../ops/telemetry/error-serializer.js';
import { isRecord } from '../unknown-fields.js';

export type MintApiErrorKind =
  'rejected' | 'unauthorized' | 'not_found' | 'rate_limited' | 'unavailable' | 'timeout' | 'network' | 'bad_response';

export interface MintApiErrorDetails {
  /** HTTP status, when the service answered. */
  status?: number;
  /** Seconds the service asked us to wait (429 Retry-After). */
  retryAfterSeconds?: number;
  /** Short safe text taken from the response body (truncated, secrets removed). */
  serviceMessage?: string;
  /**
   * The request may have reached the service and changed something (a timeout or dropped connection after
   * sending, or a success answer that could not be read): the user must check before trying again.
   */
  outcomeUnknown?: boolean;
  /** For a refused key (401/403) or address: what a person can do about it, when the app knows better. */
  advice?: string;
  /**
   * The app did not connect: the service's address (a workspace's own base URL) is not a public one. Nothing
   * was sent, and the service is not down: it is the address that must change.
   */
  addressRefused?: boolean;
}

/** The one error the Mint API client throws. `message` is safe to show and log; the stack is not logged. */
export class MintApiError extends Error implements ExpectedFailure {
  override readonly name = 'MintApiError';
  readonly logStack = false;
  constructor(
    readonly kind: MintApiErrorKind,
    message: string,
    readonly details: MintApiErrorDetails = {},
  ) {
    super(message);
  }
  get status(): number | undefined {
    return this.details.status;
  }
}

export function kindForStatus(status: number): MintApiErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  if (status >= 400) return 'rejected';
  return 'bad_response'; // 1xx/3xx: nothing the spec allows
}

const MAX_SERVICE_MESSAGE = 300;

/**
 * A short message from an error body, when it has one: JSON `message`/`error`/`detail`/`errors`, or a short
 * plain-text body. The error shape is not in the spec, so this only looks for what is commonly there.
 */
export function serviceMessageFromBody(
  body: string,
  contentType: string | undefined,
  scrub: (t: string) => string,
): string | undefined {
  let text: string | undefined;
  try {
    text = messageFromJson(JSON.parse(body));
  } catch {
    if (!contentType || /^text\/plain/i.test(contentType)) text = body;
  }
  if (!text) return undefined;
  const clean = scrub(text.replace(/[\p{Cc}\s]+/gu, ' ').trim());
  if (!clean) return undefined;
  return clean.length > MAX_SERVICE_MESSAGE ? `${clean.slice(0, MAX_SERVICE_MESSAGE - 1)}…` : clean;
}

function messageFromJson(value: unknown, depth = 0): string | undefined {
  if (depth > 2 || value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const parts = value.map((v) => messageFromJson(v, depth + 1)).filter((v): v is string => !!v);
    return parts.length > 0 ? parts.join('; ') : undefined;
  }
  if (isRecord(value)) {
    const o = value;
    for (const key of ['message', 'error_description', 'detail', 'error', 'errors', 'title', 'msg']) {
      const found = messageFromJson(o[key], depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}
