import type { WorkBudget } from '../../slack/admission/work-budget.js';
import type { Store } from '../../store/store.js';
import { stringFieldOf } from '../../unknown-fields.js';

export type ReadinessState = { ready: true } | { ready: false; reason: string };

/**
 * Whether this process should get traffic: the store answers, its schema is in place, its work budget has
 * room (a load balancer then sends new requests to another replica), and it is not stopping.
 */
export class Readiness {
  private migrated = false;
  private migrationProblem: string | undefined = 'database migrations not applied yet';
  private stopping = false;

  constructor(
    private readonly store: Pick<Store, 'ping'>,
    private readonly scrub: (text: string) => string,
    private readonly work: Pick<WorkBudget, 'count' | 'limit' | 'isFull'>,
    /** Says why the database failed (see describeDatabaseError); by default its code or message. */
    private readonly describe: (error: unknown) => string = describeError,
  ) {}

  markMigrated(): void {
    this.migrated = true;
    this.migrationProblem = undefined;
  }

  markMigrationFailed(error: unknown): void {
    this.migrationProblem = `database migrations not applied: ${this.describe(error)}`;
  }

  markStopping(): void {
    this.stopping = true;
  }

  /** True once shutdown began: background work stops taking new work. */
  get isStopping(): boolean {
    return this.stopping;
  }

  get isMigrated(): boolean {
    return this.migrated;
  }

  private lastPing: { at: number; result: Promise<void> } | undefined;

  /** The database's answer, shared by every check within PING_SHARED_MS. */
  private ping(): Promise<void> {
    const now = Date.now();
    if (!this.lastPing || now - this.lastPing.at >= PING_SHARED_MS) {
      const result = this.store.ping(1_500);
      result.catch(() => undefined); // each caller sees the failure; none left unhandled
      this.lastPing = { at: now, result };
    }
    return this.lastPing.result;
  }

  async check(): Promise<ReadinessState> {
    if (this.stopping) return { ready: false, reason: 'shutting down' };
    if (this.work.isFull)
      return { ready: false, reason: `saturated: ${this.work.count} of ${this.work.limit} requests in progress` };
    try {
      await this.ping();
    } catch (error) {
      return { ready: false, reason: this.scrub(`database unreachable: ${this.describe(error)}`) };
    }
    if (!this.migrated) return { ready: false, reason: this.scrub(this.migrationProblem ?? 'database not ready') };
    return { ready: true };
  }
}

/** How long one database ping answers every /readyz: the endpoint is open, and a flood must not reach the database. */
const PING_SHARED_MS = 1_000;

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return stringFieldOf(error, 'code') ?? error.message ?? error.name;
  return String(error);
}
