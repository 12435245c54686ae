import type { Pool } from 'undici';
import { mintConnectionPool } from '../mint-api/mint-api-client.js';

/**
 * Connections to the Mint service, one pool per origin shared by every account's client there: a thousand
 * workspaces on one service keep one set of keep-alive connections, not a thousand. A pool is closed when
 * the last client using it is dropped (undici lets the requests in flight finish first).
 */
export class SharedPools {
  /** Bounded by the clients in use (at most the accounts' client cache): a pool goes with its last user. */
  private readonly pools = new Map<string, { pool: Pool; users: number }>();

  acquire(origin: string): Pool {
    const known = this.pools.get(origin);
    if (known) {
      known.users += 1;
      return known.pool;
    }
    const pool = mintConnectionPool(origin);
    this.pools.set(origin, { pool, users: 1 });
    return pool;
  }

  release(origin: string): Promise<void> {
    const known = this.pools.get(origin);
    if (!known) return Promise.resolve();
    known.users -= 1;
    if (known.users > 0) return Promise.resolve();
    this.pools.delete(origin);
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
