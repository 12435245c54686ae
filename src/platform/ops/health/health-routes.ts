import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Readiness } from './readiness.js';
import type { Logger } from '../telemetry/create-logger.js';
import type { Config } from '../config/config.js';
import type { Metrics } from '../telemetry/metrics.js';
import { metricsResponder } from './metrics-access.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/**
 * /healthz, /readyz and /metrics, served by Bolt's receiver in both modes; /metrics (behind METRICS_TOKEN when
 * set) only while METRICS_PORT is unset, since it then has a listener of its own (see metrics-listener.ts).
 */
export function healthRoutes(deps: {
  readiness: Readiness;
  metrics: Metrics;
  logger: Logger;
  config: Pick<Config, 'metrics'>;
}): CustomRoute[] {
  // Bolt's Socket Mode receiver does not await route handlers, so each one answers its own errors.
  const guarded = (handler: Handler) => (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        await handler(req, res);
      } catch (error) {
        deps.logger.error({ err: error, path: req.url }, 'health route failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      }
    })();
  };
  const routes: CustomRoute[] = [
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
  ];
  if (deps.config.metrics.port === undefined) {
    routes.push({
      path: '/metrics',
      method: ['GET'],
      handler: guarded(metricsResponder(deps.metrics, deps.config.metrics.token)),
    });
  }
  return routes;
}
