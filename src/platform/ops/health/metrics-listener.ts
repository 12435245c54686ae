import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../telemetry/create-logger.js';

export interface MetricsListener {
  /** The port it listens on (the configured one, or the one the OS chose for port 0). */
  readonly port: number;
  /** Stops listening and closes its connections: idle keep-alive ones at once, others after their answer. */
  close(): Promise<void>;
}

/**
 * A plain HTTP listener of its own for GET /metrics (METRICS_PORT), apart from the port Slack reaches; every
 * other path is 404. Rejects when it cannot listen (port taken, address not on this host).
 */
export async function startMetricsListener(options: {
  port: number;
  host: string;
  serve: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  logger: Logger;
}): Promise<MetricsListener> {
  const server: Server = createServer({ requestTimeout: 15_000, headersTimeout: 10_000 }, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    options.serve(req, res).catch((error: unknown) => {
      options.logger.error({ err: error }, 'metrics listener failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => options.logger.error({ err: error }, 'metrics listener failed'));
  const address = server.address(); // a TCP server's: an AddressInfo (a string only for a pipe)
  if (!isAddressInfo(address)) throw new Error('the metrics listener has no TCP address');
  return {
    port: address.port,
    // close() also ends idle keep-alive connections (a scraper's), so it does not wait on them.
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function isAddressInfo(address: string | AddressInfo | null): address is AddressInfo {
  return typeof address === 'object' && address !== null;
}
