import type { Kysely } from 'kysely';
import { databaseNow } from './database-now.js';
import type { Tables } from './tables.js';

import { ENDED_STATUSES } from './deletion-requests.js';

export interface StepCompletion {
  requestId: string;
  functionExecutionId: string;
  sealedToken: string;
}

/** A claimed step, with how many reports of it have failed so far. */
export interface ClaimedStep extends StepCompletion {
  attempts: number;
}

/**
 * Workflow steps waiting for a deletion request to end. Whoever ends the request (on any replica, or the
 * sweeper after a restart) claims the step with a compare-and-set and completes it; a claim left by a process
 * that died is taken over after `leaseMs`. A step is completed once; its sealed token is erased then. Claims
 * and waits are timed by the database's clock (see databaseNow), the same for every replica.
 */
export class StepCompletions {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  async add(entry: StepCompletion): Promise<void> {
    await this.db
      .insertInto('step_completions')
      .values({
        request_id: entry.requestId,
        function_execution_id: entry.functionExecutionId,
        sealed_token: entry.sealedToken,
        state: 'waiting',
        created_at: databaseNow(this.engine),
        claimed_at: null,
        completed_at: null,
        result: null,
        attempts: 0,
        next_try_at: null,
      })
      .execute();
  }

  /** The step of this request, if one waits and nobody else is completing it now; it is then this caller's. */
  async claim(requestId: string, leaseMs: number): Promise<ClaimedStep | undefined> {
    const staleBefore = databaseNow(this.engine, -leaseMs);
    const result = await this.db
      .updateTable('step_completions')
      .set({ state: 'completing', claimed_at: databaseNow(this.engine) })
      .where('request_id', '=', requestId)
      .where((eb) =>
        eb.or([
          eb('state', '=', 'waiting'),
          eb.and([eb('state', '=', 'completing'), eb('claimed_at', '<', staleBefore)]),
        ]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    const row = await this.db
      .selectFrom('step_completions')
      .select(['request_id', 'function_execution_id', 'sealed_token', 'attempts'])
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return row
      ? {
          requestId: row.request_id,
          functionExecutionId: row.function_execution_id,
          sealedToken: row.sealed_token,
          attempts: Number(row.attempts),
        }
      : undefined;
  }

  /** The step was completed (or can never be): never again, and its token is gone. */
  async finish(requestId: string, result: 'completed' | 'failed' | 'gone' | 'abandoned'): Promise<void> {
    await this.db
      .updateTable('step_completions')
      .set({ state: 'completed', result, completed_at: databaseNow(this.engine), sealed_token: '' })
      .where('request_id', '=', requestId)
      .where('state', '=', 'completing')
      .execute();
  }

  /** Slack could not be told this time: the step waits `retryInMs`, one more failure counted. */
  async release(requestId: string, retryInMs: number): Promise<void> {
    await this.db
      .updateTable('step_completions')
      .set((eb) => ({
        state: 'waiting',
        claimed_at: null,
        next_try_at: databaseNow(this.engine, retryInMs),
        attempts: eb('attempts', '+', 1),
      }))
      .where('request_id', '=', requestId)
      .where('state', '=', 'completing')
      .execute();
  }

  /** The sealed token kept for a request's step ('' once completed), for checks. */
  async sealedTokenOf(requestId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('step_completions')
      .select('sealed_token')
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return row?.sealed_token;
  }

  /**
   * Requests that have ended while their step still waits (due for another try), or whose claim went stale:
   * oldest first, so a few that Slack keeps refusing cannot hold the others back.
   */
  async dueRequestIds(leaseMs: number, limit = 20): Promise<string[]> {
    const now = databaseNow(this.engine);
    const staleBefore = databaseNow(this.engine, -leaseMs);
    const rows = await this.db
      .selectFrom('step_completions as s')
      .innerJoin('deletion_requests as r', 'r.id', 's.request_id')
      .select('s.request_id')
      .where('r.status', 'in', [...ENDED_STATUSES])
      .where((eb) =>
        eb.or([
          eb.and([
            eb('s.state', '=', 'waiting'),
            eb.or([eb('s.next_try_at', 'is', null), eb('s.next_try_at', '<=', now)]),
          ]),
          eb.and([eb('s.state', '=', 'completing'), eb('s.claimed_at', '<', staleBefore)]),
        ]),
      )
      .orderBy('s.created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.request_id);
  }
}
