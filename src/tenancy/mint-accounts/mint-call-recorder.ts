import { createHmac } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../platform/ops/config/config.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type {
  MintCallOutcome,
  MintCallOutcomeRows,
  StoredMintCallOutcome,
} from '../../platform/store/mint-call-outcomes.js';

/** The account of the operator's MINT_API_KEY (single-workspace mode) in the outcomes table. */
export const OPERATOR_ACCOUNT = '';

/** A calm service is written at most this often: a call a second must not be a write a second. */
export const SAME_OUTCOME_WRITE_MS = 60_000;

/**
 * Names a key without revealing it: the first 16 hex digits of its HMAC-SHA256 under `idKey` (keyIdSecret), so
 * that a copy of the database alone cannot test guessed keys against it.
 */
export function mintKeyId(apiKey: string, idKey: string | Buffer): string {
  return createHmac('sha256', idKey).update(apiKey, 'utf8').digest('hex').slice(0, 16);
}

/**
 * The secret the key ids are made under, one the app already keeps in its environment, never in the database:
 * in distribution mode the first key of SECRETS_KEYS (the keys that seal the Mint keys themselves); in
 * single-workspace mode, which has no SECRETS_KEYS, the Slack secret its mode needs (SLACK_SIGNING_SECRET in
 * HTTP mode, SLACK_APP_TOKEN in Socket Mode), kept beside MINT_API_KEY. Rotating it makes the last recorded call
 * unmatched until the next call, which the setup doctor reports as "not called with this key yet".
 */
export function keyIdSecret(
  config: Pick<Config, 'secretKeys' | 'distribution'> & {
    slack?: Pick<Config['slack'], 'signingSecret' | 'appToken' | 'botToken'>;
  },
): string | Buffer {
  const first = config.distribution ? config.secretKeys[0] : undefined;
  if (first) return first.bytes;
  return config.slack?.signingSecret ?? config.slack?.appToken ?? config.slack?.botToken ?? '';
}

/**
 * Keeps, in the database, how each Mint account's last real call ended and when, where the setup doctor (a
 * process of its own) and every replica read it. Cheap: a write when the outcome or the key changes, else at
 * most one a minute per account; never awaited by the call itself.
 */
export class MintCallRecorder {
  /** Per account, the last outcome written (one an account not used for long is written again: harmless). */
  private readonly written = new LRUCache<string, { keyId: string; outcome: MintCallOutcome; at: number }>({
    max: 10_000,
  });
  /** Writes under way (each ends with its query's deadline). */
  private readonly pending = new Set<Promise<void>>();
  /**
   * The last call of each account used in this process, written or not (the database row can be a minute
   * older); the least recently used accounts are let go past the bound, and read from the database.
   */
  private readonly seen = new LRUCache<string, StoredMintCallOutcome>({ max: 10_000 });
  private readonly listeners: Array<(account: string) => void> = [];

  constructor(
    private readonly rows: Pick<MintCallOutcomeRows, 'save'>,
    private readonly logger: Logger,
    /** keyIdSecret(config). */
    private readonly idKey: string | Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  /** The `onCallEnded` of the client of `account` made with `apiKey`. */
  forAccount(account: string, apiKey: string): (outcome: MintCallOutcome, status: number | undefined) => void {
    const keyId = mintKeyId(apiKey, this.idKey);
    return (outcome, status) => this.record(account, keyId, outcome, status);
  }

  /** Tells `listener` the account of each call as it ends (what shows the last call is out of date). */
  onCall(listener: (account: string) => void): void {
    this.listeners.push(listener);
  }

  /**
   * The account's last call: the newer of the database's row (any process's) and this process's last call,
   * so that what people see matches the time this process's Home shows.
   */
  latest(account: string, stored: StoredMintCallOutcome | undefined): StoredMintCallOutcome | undefined {
    const here = this.seen.get(account);
    if (!here) return stored;
    return !stored || here.at.getTime() >= stored.at.getTime() ? here : stored;
  }

  private record(account: string, keyId: string, outcome: MintCallOutcome, status: number | undefined): void {
    const at = this.now();
    this.seen.set(account, { account, keyId, outcome, status, at: new Date(at) });
    for (const listener of this.listeners) listener(account);
    const last = this.written.get(account);
    if (last && last.keyId === keyId && last.outcome === outcome && at - last.at < SAME_OUTCOME_WRITE_MS) return;
    const noted = { keyId, outcome, at };
    this.written.set(account, noted);
    const write = this.rows.save({ account, keyId, outcome, status, at: new Date(at) }).catch((error: unknown) => {
      if (this.written.get(account) === noted) this.written.delete(account); // the next call tries again
      this.logger.warn({ err: error, team: account || undefined }, 'could not record how the Mint service answered');
    });
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  /** Waits for the writes under way (before the database closes). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
