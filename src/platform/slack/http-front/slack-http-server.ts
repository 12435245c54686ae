import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { HTTPReceiver } from '@slack/bolt';
import { WorkBudget } from '../admission/work-budget.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import { screenSlackRequest } from './slack-request-screen.js';

export const SLACK_EVENTS_PATH = '/slack/events';
/**
 * Requests whose body is being read before its signature could be checked: anyone can send those, so they
 * get a bounded share of the process (with the body cap, 64 MB at most). Each read has 2 s, so holding all
 * the places takes a steady stream of new connections, a flood a load balancer sees.
 */
const UNVERIFIED_READS_AT_ONCE = 256;

/**
 * The HTTP server in HTTP mode: Bolt's own HTTPReceiver does the work (its requestListener: routing, parsing,
 * acks, the custom health routes), and this server screens Slack's endpoint first, because Bolt reads up to
 * 4 MB of any body before checking the signature, accepts timestamps in the future, and leaves a signed
 * `payload=null` unanswered.
 */
export function slackHttpServer(receiver: HTTPReceiver, signingSecret: string, logger: Logger): Server {
  const reading = new WorkBudget(UNVERIFIED_READS_AT_ONCE);
  const dispatch: Parameters<typeof createServer>[1] = (req, res) => {
    try {
      receiver.requestListener(req, res);
    } catch {
      // Bolt throws for paths it does not serve (its default handler answers 404 the same way).
      res.writeHead(404).end();
    }
  };
  return createServer({ requestTimeout: 15_000, headersTimeout: 10_000 }, (req, res) => {
    // Slack's requests name the path as it is: no URL to parse for them (Bolt's receiver parses it again).
    const path =
      req.url === SLACK_EVENTS_PATH ? SLACK_EVENTS_PATH : new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== SLACK_EVENTS_PATH || req.method !== 'POST') return dispatch(req, res);
    if (!reading.tryAcquire()) {
      res.writeHead(503, { 'retry-after': '1', connection: 'close' }).end();
      return;
    }
    void screenSlackRequest(req, signingSecret)
      .then((screened) => {
        if (screened.ok) return dispatch(Object.assign(req, { rawBody: screened.rawBody }), res);
        logger.warn({ status: screened.status, reason: screened.reason }, 'refused a request to the Slack endpoint');
        if (!res.destroyed) refuse(req, res, screened.status);
      })
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not read a request to the Slack endpoint');
        if (!res.headersSent && !res.destroyed) res.writeHead(400, { connection: 'close' }).end();
      })
      .finally(() => reading.release());
  });
}

/**
 * Set on the app's own refusal of a request to the Slack endpoint: the setup doctor tells the app's answer to an
 * unsigned request from a login wall's or a proxy's 401.
 */
export const REFUSED_BY_MINTLINK_HEADER = 'x-mintlink-refused';

/** How long a refused client gets to read its answer before the connection is closed under it. */
const REFUSAL_LINGER_MS = 1_000;

/**
 * Answers a refused request with `connection: close` (the client must not send another on it) and closes the
 * connection in two steps, a "lingering close" as web servers do it: at once only our side (the answer is
 * complete), for good a moment later. Closing both at once, with the client still sending a body it was told
 * not to send, makes the kernel reset the connection, and the reset can destroy the answer before the client
 * reads it (it sees EPIPE, not 413). Meanwhile Node discards what still arrives (nothing is kept).
 */
function refuse(req: IncomingMessage, res: ServerResponse, status: number): void {
  const socket = req.socket;
  // Node ends a `connection: close` response's socket with destroySoon() once the answer is written.
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
  };
  res.writeHead(status, { connection: 'close', [REFUSED_BY_MINTLINK_HEADER]: 'slack-signature' }).end();
}

/**
 * Starts taking requests on `port` of `host` (every interface when undefined); rejects when it cannot (the port
 * in use, an address this machine does not have).
 */
export async function listen(server: Server, port: number, host?: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (host === undefined) server.listen(port, () => resolve());
    else server.listen(port, host, () => resolve());
  });
}

/** Stops taking requests; work already admitted goes on (it does not need its connection). */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections with no request in progress would hold close() open (a load balancer's pool), and a
  // client trickling a request would hold it for ever: after 2 s every connection is closed.
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), 2_000);
  await closed;
  clearTimeout(timer);
}
