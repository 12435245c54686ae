import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../telemetry/metrics.js';

export type BearerCheck = 'allowed' | 'missing' | 'wrong';

/**
 * Checks `Authorization: Bearer <token>` against the configured token. Both sides are hashed first, so the
 * comparison takes the same time whatever the length or the first wrong character of what was sent.
 */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => BearerCheck {
  const expected = sha256(token);
  return (authorization) => {
    const sent = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
    if (sent === undefined) return 'missing';
    return timingSafeEqual(sha256(sent), expected) ? 'allowed' : 'wrong';
  };
}

/**
 * Answers a request for /metrics: Prometheus text, or 401 with `WWW-Authenticate: Bearer` when a token is
 * configured and the request does not carry it.
 */
export function metricsResponder(
  metrics: Pick<Metrics, 'registry'>,
  token: string | undefined,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const check = token === undefined ? undefined : bearerTokenCheck(token);
  return async (req, res) => {
    const access = check?.(req.headers.authorization) ?? 'allowed';
    if (access !== 'allowed') {
      const challenge = `Bearer realm="mintlink metrics"${access === 'wrong' ? ', error="invalid_token"' : ''}`;
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': challenge });
      res.end('unauthorized\n');
      return;
    }
    const body = await metrics.registry.metrics();
    res.writeHead(200, { 'content-type': metrics.registry.contentType });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
