import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Readiness } from '../lifecycle/readiness.js';
import type { Logger } from '../logging/create-logger.js';
import type { Metrics } from '../metrics/metrics.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** /healthz, /readyz and /metrics, served by Bolt's receiver in both modes. */
export function healthRoutes(deps: { readiness: Readiness; metrics: Metrics; logger: Logger }): CustomRoute[] {
  // Bolt's Socket Mode receiver does not await route handlers, so each one answers its own errors.
  const guarded = (handler: Handler) => async (req: IncomingMessage, res: ServerResponse) => {
    try {
      await handler(req, res);
    } catch (error) {
      deps.logger.error({ err: error, path: req.url }, 'health route failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    }
  };
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: guarded((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok\n');
      }),
    },
    {
      path: '/readyz',
      method: ['GET'],
      handler: guarded(async (_req, res) => {
        const state = await deps.readiness.check();
        res.writeHead(state.ready ? 200 : 503, { 'content-type': 'application/json' });
        res.end(
          `${JSON.stringify(state.ready ? { status: 'ready' } : { status: 'not ready', reason: state.reason })}\n`,
        );
      }),
    },
    {
      path: '/metrics',
      method: ['GET'],
      handler: guarded(async (_req, res) => {
        const body = await deps.metrics.registry.metrics();
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        res.end(body);
      }),
    },
  ];
}
