import type { WorkBudget } from '../admission/work-budget.js';
import type { Store } from '../store/store.js';

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

  get isMigrated(): boolean {
    return this.migrated;
  }

  async check(): Promise<ReadinessState> {
    if (this.stopping) return { ready: false, reason: 'shutting down' };
    if (this.work.isFull)
      return { ready: false, reason: `saturated: ${this.work.count} of ${this.work.limit} requests in progress` };
    try {
      await this.store.ping(1_500);
    } catch (error) {
      return { ready: false, reason: this.scrub(`database unreachable: ${this.describe(error)}`) };
    }
    if (!this.migrated) return { ready: false, reason: this.scrub(this.migrationProblem ?? 'database not ready') };
    return { ready: true };
  }
}

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return (error as { code?: string }).code ?? error.message ?? error.name;
  return String(error);
}
