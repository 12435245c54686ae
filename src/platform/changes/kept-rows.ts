import { LRUCache } from 'lru-cache';
import type { ChangeFeed, ChangeTopic } from './change-feed.js';

/** Where kept rows come from: one row with its version, and the versions of many in one query. */
export interface KeptRowsSource<V> {
  /** The row as it is now (undefined: there is none), and its version (what changes when the row does). */
  read(id: string): Promise<{ value: V; version: string } | undefined>;
  /** The versions of those of these rows that exist. */
  versions(ids: readonly string[]): Promise<Map<string, string>>;
}

export interface KeptRowsOptions {
  /** How many rows a replica keeps at most (the least recently used go first). */
  max?: number;
  /** A row not used for this long is dropped; the next request reads it again. */
  unusedDropMs?: number;
  /** Also keep "there is none" (answered from memory until the row appears). */
  keepMissing: boolean;
}

interface Kept<V> {
  value: V | undefined;
  version: string | undefined;
}

/**
 * Rows every request needs (a workspace's installation, its Mint account), kept in each replica's memory so a
 * request reads the database only the first time the replica sees the row. A change made on any replica is
 * announced on the change feed (`follow`): the row is forgotten, and the next request reads it again. When the
 * feed may have missed changes (its connection lost, or another process on one SQLite file), what is kept is
 * checked against the database in one query (`revalidate`). Requests never wait for either.
 */
export class KeptRows<V> {
  /**
   * Rows unused for `unusedDropMs` expire (lru-cache's ttl, renewed by each use). Made when the first row is
   * kept: an LRU with a ttl allocates all its places at once, and many processes (a command, a replica that
   * serves no request) never keep one.
   */
  private kept: LRUCache<string, Kept<V>> | undefined;
  /** Reads under way (each removed when it ends). */
  private readonly reading = new Map<string, Promise<V | undefined>>();
  /**
   * Moved by each `forget`: a read that started before a change (a key removed, an installation deleted) is
   * not kept, nor shared with requests that come after it.
   */
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly source: KeptRowsSource<V>,
    private readonly options: KeptRowsOptions,
  ) {}

  /** Forgets each row of `topic` the feed says changed, and checks all kept rows when it may have missed some. */
  follow(feed: Pick<ChangeFeed, 'on' | 'onCatchUp'>, topic: ChangeTopic): this {
    feed.on(topic, (id) => this.forget(id));
    feed.onCatchUp(() => this.revalidate());
    return this;
  }

  /** The row, from memory when kept; otherwise read (once, for everyone asking at the same time). */
  async get(id: string): Promise<V | undefined> {
    const kept = this.kept?.get(id);
    if (kept) return kept.value;
    let reading = this.reading.get(id);
    if (!reading) {
      const started = this.read(id);
      reading = started.finally(() => {
        if (this.reading.get(id) === reading) this.reading.delete(id);
      });
      this.reading.set(id, reading);
    }
    return reading;
  }

  /** Forgets a row that changed (the next request reads it again, even if a read is under way). */
  forget(id: string): void {
    this.kept?.delete(id);
    this.reading.delete(id);
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
    if (this.generations.size > 10_000) this.generations.clear(); // only reads under way need theirs
  }

  /** Checks the kept rows' versions in one query; forgets those deleted or changed since they were read. */
  async revalidate(): Promise<void> {
    const ids = [...(this.kept?.keys() ?? [])];
    if (ids.length === 0) return;
    const versions = await this.source.versions(ids);
    for (const id of ids) {
      const kept = this.kept?.peek(id);
      if (kept && kept.version !== versions.get(id)) this.forget(id);
    }
  }

  private async read(id: string): Promise<V | undefined> {
    const generation = this.generations.get(id);
    const row = await this.source.read(id);
    if (this.generations.get(id) === generation) this.keep(id, row);
    return row?.value;
  }

  private keep(id: string, row: { value: V; version: string } | undefined): void {
    if (!row && !this.options.keepMissing) {
      this.kept?.delete(id);
      return;
    }
    this.kept ??= new LRUCache({
      max: this.options.max ?? 10_000,
      ttl: this.options.unusedDropMs ?? 10 * 60_000,
      updateAgeOnGet: true,
    });
    this.kept.set(id, row ? { value: row.value, version: row.version } : { value: undefined, version: undefined });
  }
}
