import { LRUCache } from 'lru-cache';
import type { Logger } from '../telemetry/create-logger.js';
import { startPeriodic } from './periodic-work.js';

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
  usedAt: number;
}

/**
 * Rows every request needs (a workspace's installation, its Mint account), kept in each replica's memory so a
 * request reads the database only the first time the replica sees the row. What is kept is checked against the
 * database in one query every period (`start`): rows deleted or changed elsewhere (an uninstall, a key
 * replaced on another replica) are dropped or read again. A change reaches every replica within one period,
 * however rarely its rows are used, and requests never wait for that check.
 */
export class KeptRows<V> {
  private readonly kept: LRUCache<string, Kept<V>>;
  /** Reads under way (each removed when it ends). */
  private readonly reading = new Map<string, Promise<V | undefined>>();
  /**
   * Moved by each `forget`: a read that started before a change made here (a key removed, an installation
   * deleted) is not kept, nor shared with requests that come after it.
   */
  private readonly generations = new Map<string, number>();
  private readonly unusedDropMs: number;

  constructor(
    private readonly source: KeptRowsSource<V>,
    private readonly options: KeptRowsOptions,
  ) {
    this.kept = new LRUCache({ max: options.max ?? 10_000 });
    this.unusedDropMs = options.unusedDropMs ?? 10 * 60_000;
  }

  /** The row, from memory when kept; otherwise read (once, for everyone asking at the same time). */
  async get(id: string): Promise<V | undefined> {
    const kept = this.kept.get(id);
    if (kept) {
      kept.usedAt = Date.now();
      return kept.value;
    }
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

  /** Forgets a row changed here (the next request reads it again, even if a read is under way). */
  forget(id: string): void {
    this.kept.delete(id);
    this.reading.delete(id);
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
    if (this.generations.size > 10_000) this.generations.clear(); // only reads under way need theirs
  }

  /** Drops rows unused for a while, then checks the others' versions in one query and reads changed ones. */
  async revalidate(): Promise<void> {
    const now = Date.now();
    for (const [id, kept] of this.kept.entries()) if (now - kept.usedAt >= this.unusedDropMs) this.kept.delete(id);
    const ids = [...this.kept.keys()];
    if (ids.length === 0) return;
    const versions = await this.source.versions(ids);
    for (const id of ids) {
      const kept = this.kept.get(id);
      if (!kept || kept.version === versions.get(id)) continue;
      const generation = this.generations.get(id);
      const row = versions.has(id) ? await this.source.read(id) : undefined;
      if (this.generations.get(id) === generation) this.keep(id, row, kept.usedAt);
    }
  }

  /** The check, every `everyMs`, as background work; with the database away, what is kept stays in use. */
  start(everyMs: number, logger: Logger, what: string): () => Promise<void> {
    let quietUntil = 0;
    return startPeriodic({
      everyMs,
      atStart: false,
      run: () => this.revalidate(),
      failed: (error) => {
        if (Date.now() < quietUntil) return;
        quietUntil = Date.now() + 60_000; // the database away for a while: one line a minute
        logger.warn({ err: error }, `could not check the kept ${what} against the database; they stay in use`);
      },
    });
  }

  private async read(id: string): Promise<V | undefined> {
    const generation = this.generations.get(id);
    const row = await this.source.read(id);
    if (this.generations.get(id) === generation) this.keep(id, row, Date.now());
    return row?.value;
  }

  private keep(id: string, row: { value: V; version: string } | undefined, usedAt: number): void {
    if (row) this.kept.set(id, { value: row.value, version: row.version, usedAt });
    else if (this.options.keepMissing) this.kept.set(id, { value: undefined, version: undefined, usedAt });
    else this.kept.delete(id);
  }
}
