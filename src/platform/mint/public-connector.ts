import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { buildConnector } from 'undici';
import { hostOf, publicAddressOf, type AddressPolicy, type HostResolver } from './public-address.js';

export interface PublicOnlyOptions extends AddressPolicy {
  resolve: HostResolver;
  /** How long a lookup may take before the connection fails (EAI_AGAIN), as undici bounds the connect itself. */
  lookupTimeoutMs?: number;
  /** TLS options for every connection (tests: the certificate authority of their own HTTPS server). */
  tls?: Pick<ConnectionOptions, 'ca'>;
}

/** undici's own connect timeout. */
const LOOKUP_TIMEOUT_MS = 10_000;

/**
 * Opens connections to public addresses only, for a URL a workspace's admin typed: the host is resolved here,
 * each connection goes to the very address that was checked (no second lookup inside net.connect, which a name
 * with a short TTL could answer differently), and TLS still verifies the certificate against the host name
 * (sent as SNI). A host that is not public ends the connection with NonPublicAddressError, nothing sent.
 */
export function publicOnlyConnector(options: PublicOnlyOptions): buildConnector.connector {
  const connect = buildConnector({ ...options.tls });
  const timeoutMs = options.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS;
  return (target, callback) => {
    const host = hostOf(target.hostname);
    publicAddressOf(host, options, options.resolve, timeoutMs).then(
      ({ address }) =>
        connect(
          {
            ...target,
            hostname: address,
            // The certificate is checked against the name, never against the address connected to.
            ...(isIP(host) ? {} : { servername: target.servername ?? host }),
          },
          callback,
        ),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}
