import { createServer } from 'node:net';

/**
 * A free loopback port, kept: listened on (never accepting) until `release()`, so that no other process is given
 * it meanwhile. Whoever will listen on it releases it right before, in the same turn of the event loop.
 */
export interface HeldPort {
  readonly port: number;
  release(): void;
}

export async function holdFreePort(): Promise<HeldPort> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // Closing stops the listening socket at once (only the callback waits): the port is free again on return.
  return { port, release: () => void (server.listening && server.close()) };
}

/** A port that was free a moment ago (the OS picks it), for child processes that must be told their port. */
export async function freePort(): Promise<number> {
  const held = await holdFreePort();
  held.release();
  return held.port;
}
