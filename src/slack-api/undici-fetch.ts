import { STATUS_CODES } from 'node:http';
import { Agent, request } from 'undici';

/**
 * A fetch for the Slack SDK (WebClient and Bolt's respond()) on undici's request API with keep-alive pools:
 * Slack's answers are small JSON, so the WHATWG Request/Response/stream machinery of the built-in fetch is
 * pure overhead on every call (measured by `npm run bench`). Anything but a string body (file uploads,
 * which the app does not use) goes to the built-in fetch.
 */
export function undiciFetch({ timeoutMs }: { timeoutMs: number }): typeof fetch {
  // undici's own time limits: they end with the request, unlike an AbortSignal.timeout (see web-client-options).
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const fetchLike = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request || (init.body !== undefined && init.body !== null && typeof init.body !== 'string')) {
      return fetch(input, init);
    }
    const answer = await request(input, {
      method: (init.method ?? 'GET') as 'GET',
      headers: init.headers as Record<string, string> | undefined,
      body: init.body ?? undefined,
      signal: init.signal ?? undefined,
      dispatcher: agent,
    });
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    return minimalResponse(String(input), answer.statusCode, answer.headers, bytes);
  };
  return fetchLike as typeof fetch;
}

/** The part of a fetch Response the Slack SDK reads: url, status, headers, and the body once. */
function minimalResponse(url: string, status: number, raw: Record<string, string | string[] | undefined>, bytes: Buffer): Response {
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(raw)) if (value !== undefined) headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  const text = () => bytes.toString('utf8');
  return {
    url,
    status,
    statusText: STATUS_CODES[status] ?? '',
    ok: status >= 200 && status < 300,
    headers: { get: (name: string) => headers.get(name.toLowerCase()) ?? null, has: (name: string) => headers.has(name.toLowerCase()), entries: () => headers.entries(), forEach: (fn: (v: string, k: string) => void) => headers.forEach(fn) },
    text: async () => text(),
    json: async () => JSON.parse(text()) as unknown,
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  } as unknown as Response;
}
