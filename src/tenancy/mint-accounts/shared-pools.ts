import type { Pool } from 'undici';
import { mintConnectionPool } from '../../platform/mint/mint-api-client.js';
import { publicOnlyConnector, type PublicOnlyOptions } from '../../platform/mint/public-connector.js';

/** Which connections: to the operator's MINT_API_BASE_URL as configured, or to a URL a workspace's admin typed. */
export type PoolKind = 'operator' | 'public-only';

/**
 * Connections to the Mint service, one pool per origin shared by every account's client there: a thousand
 * workspaces on one service keep one set of keep-alive connections, not a thousand. A pool is closed when
 * the last client using it is dropped (undici lets the requests in flight finish first). The origins that
 * workspaces' admins typed get pools of their own, whose connections go to public addresses only (see
 * publicOnlyConnector), even where the operator's service has the same origin.
 */
export class SharedPools {
  /** Bounded by the clients in use (at most the accounts' client cache): a pool goes with its last user. */
  private readonly pools = new Map<string, { pool: Pool; users: number }>();

  constructor(private readonly publicOnly: PublicOnlyOptions) {}

  acquire(origin: string, kind: PoolKind): Pool {
    const key = `${kind} ${origin}`;
    const known = this.pools.get(key);
    if (known) {
      known.users += 1;
      return known.pool;
    }
    const pool = mintConnectionPool(origin, kind === 'public-only' ? publicOnlyConnector(this.publicOnly) : undefined);
    this.pools.set(key, { pool, users: 1 });
    return pool;
  }

  release(origin: string, kind: PoolKind): Promise<void> {
    const key = `${kind} ${origin}`;
    const known = this.pools.get(key);
    if (!known) return Promise.resolve();
    known.users -= 1;
    if (known.users > 0) return Promise.resolve();
    this.pools.delete(key);
    return known.pool.close();
  }

  async closeAll(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map(({ pool }) => pool.close()));
  }

  /** Origins with open pools (for tests). */
  get size(): number {
    return this.pools.size;
  }
}
