import type { IncomingMessage } from 'node:http';

/** The names a browser uses for this machine, as they appear in a Host header. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Whether a request to one of the sandbox's servers was addressed to this machine by name (`Host`): a loopback
 * name, or the very address the server listens on (`listenAddress`, when the operator moved it with
 * SANDBOX_HOST). A page of another site that points its own name at 127.0.0.1 (DNS rebinding) sends its own
 * name as the Host, and is refused: the sandbox's servers act for anyone in the switcher, and hold tokens.
 */
export function addressedToLoopback(req: Pick<IncomingMessage, 'headers'>, listenAddress?: string): boolean {
  const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  if (LOOPBACK_NAMES.includes(host)) return true;
  if (!listenAddress) return false;
  return host === (listenAddress.includes(':') ? `[${listenAddress.toLowerCase()}]` : listenAddress);
}

/** The refusal of a request addressed to another name, in words the person at the terminal understands. */
export function notLoopbackRefusal(server: string, req: Pick<IncomingMessage, 'headers'>): string {
  const named = JSON.stringify((req.headers.host ?? '').slice(0, 100));
  return `${server} answers only requests addressed to 127.0.0.1, localhost or [::1], and this one names Host ${named}`;
}
