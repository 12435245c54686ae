import type { ExpressionBuilder, Kysely } from 'kysely';
import { databaseNow } from './database-now.js';
import type { Tables } from './tables.js';

import { ENDED_STATUSES, type RequestRef } from './deletion-requests.js';

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
 * How a step ended: `completed`, `failed`, `gone` (Slack no longer knew the execution), `abandoned` (Slack kept
 * refusing to be told) or `uninstalled` (its workspace removed the app: nobody can tell Slack any more).
 */
export type StepResultState = 'completed' | 'failed' | 'gone' | 'abandoned' | 'uninstalled';

/**
 * Workflow steps waiting for a deletion request to end. Whoever ends the request (on any replica, or the
 * sweeper after a restart) claims the step with a compare-and-set and completes it; a claim left by a process
 * that died is taken over after `leaseMs`. A step is completed once; its sealed token is erased then. Claims
 * and waits are timed by the database's clock (see databaseNow), the same for every replica.
 *
 * A step belongs to the workspace of its request: every statement names the workspace, and reaches only the
 * steps of that workspace's requests.
 */
export class StepCompletions {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  /** Keeps the step waiting for request `entry.requestId` of the workspace; throws if it has no such request. */
  async add(teamId: string, entry: StepCompletion): Promise<void> {
    const now = databaseNow(this.engine);
    const result = await this.db
      .insertInto('step_completions')
      .columns([
        'request_id',
        'function_execution_id',
        'sealed_token',
        'state',
        'created_at',
        'claimed_at',
        'completed_at',
        'result',
        'attempts',
        'next_try_at',
      ])
      .expression((eb) =>
        eb
          .selectFrom('deletion_requests')
          .select((s) => [
            'id',
            s.val(entry.functionExecutionId).as('function_execution_id'),
            s.val(entry.sealedToken).as('sealed_token'),
            s.val('waiting').as('state'),
            s.val(now).as('created_at'),
            s.lit(null).as('claimed_at'),
            s.lit(null).as('completed_at'),
            s.lit(null).as('result'),
            s.lit(0).as('attempts'),
            s.lit(null).as('next_try_at'),
          ])
          .where('id', '=', entry.requestId)
          .where('team_id', '=', teamId),
      )
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1)
      throw new Error(`no deletion request ${entry.requestId} in this workspace for the workflow step to wait on`);
  }

  /** The step of this request, if one waits and nobody else is completing it now; it is then this caller's. */
  async claim(teamId: string, requestId: string, leaseMs: number): Promise<ClaimedStep | undefined> {
    const staleBefore = databaseNow(this.engine, -leaseMs);
    const result = await this.db
      .updateTable('step_completions')
      .set({ state: 'completing', claimed_at: databaseNow(this.engine) })
      .where('request_id', '=', requestId)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
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
  async finish(teamId: string, requestId: string, result: Exclude<StepResultState, 'uninstalled'>): Promise<void> {
    await this.db
      .updateTable('step_completions')
      .set({ state: 'completed', result, completed_at: databaseNow(this.engine), sealed_token: '' })
      .where('request_id', '=', requestId)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .where('state', '=', 'completing')
      .execute();
  }

  /** Slack could not be told this time: the step waits `retryInMs`, one more failure counted. */
  async release(teamId: string, requestId: string, retryInMs: number): Promise<void> {
    await this.db
      .updateTable('step_completions')
      .set((eb) => ({
        state: 'waiting',
        claimed_at: null,
        next_try_at: databaseNow(this.engine, retryInMs),
        attempts: eb('attempts', '+', 1),
      }))
      .where('request_id', '=', requestId)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .where('state', '=', 'completing')
      .execute();
  }

  /**
   * Nobody could try to tell Slack (the workspace cannot be reached now): the waiting step is looked at again
   * in `retryInMs`, no failure counted, so it does not stand in front of the others meanwhile.
   */
  async postpone(teamId: string, requestId: string, retryInMs: number): Promise<void> {
    await this.db
      .updateTable('step_completions')
      .set({ next_try_at: databaseNow(this.engine, retryInMs) })
      .where('request_id', '=', requestId)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .where('state', '=', 'waiting')
      .execute();
  }

  /**
   * The workspace removed the app: every step of its requests not completed yet is ended as `uninstalled`,
   * its token erased, never tried again (nobody can tell Slack any more). Resolves with how many.
   */
  async endAllOf(teamId: string): Promise<number> {
    const result = await this.db
      .updateTable('step_completions')
      .set({ state: 'completed', result: 'uninstalled', completed_at: databaseNow(this.engine), sealed_token: '' })
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .where('state', '!=', 'completed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Every token still kept (steps not completed), with its request: for `secrets reseal`. */
  async keptTokens(): Promise<{ requestId: string; sealedToken: string }[]> {
    const rows = await this.db
      .selectFrom('step_completions')
      .select(['request_id', 'sealed_token'])
      .where('state', '!=', 'completed')
      .where('sealed_token', '!=', '')
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({ requestId: row.request_id, sealedToken: row.sealed_token }));
  }

  /**
   * Replaces the sealed token of a step (resealing with a newer key) if it is still `from` and the step is not
   * completed: false when it changed meanwhile (completed, its token erased).
   */
  async replaceSealedToken(requestId: string, from: string, sealed: string): Promise<boolean> {
    const result = await this.db
      .updateTable('step_completions')
      .set({ sealed_token: sealed })
      .where('request_id', '=', requestId)
      .where('sealed_token', '=', from)
      .where('state', '!=', 'completed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The sealed token kept for a request's step ('' once completed), for checks. */
  async sealedTokenOf(teamId: string, requestId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('step_completions')
      .select('sealed_token')
      .where('request_id', '=', requestId)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .executeTakeFirst();
    return row?.sealed_token;
  }

  /** How the step of a request ended (undefined while it has not, or for no step), for checks. */
  async resultOf(teamId: string, requestId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('step_completions')
      .select('result')
      .where('request_id', '=', requestId)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .executeTakeFirst();
    return row?.result ?? undefined;
  }

  /**
   * Requests, in every workspace, that have ended while their step still waits (due for another try), or whose
   * claim went stale: oldest first, so a few that Slack keeps refusing cannot hold the others back.
   */
  async due(leaseMs: number, limit = 20): Promise<RequestRef[]> {
    const now = databaseNow(this.engine);
    const staleBefore = databaseNow(this.engine, -leaseMs);
    const rows = await this.db
      .selectFrom('step_completions as s')
      .innerJoin('deletion_requests as r', 'r.id', 's.request_id')
      .select(['s.request_id', 'r.team_id'])
      .where('r.status', 'in', [...ENDED_STATUSES])
      .where('r.team_id', 'is not', null)
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
    return rows.map((row) => ({ id: row.request_id, teamId: row.team_id ?? '' }));
  }
}

/** The ids of a workspace's requests. */
function ofTeam(eb: ExpressionBuilder<Tables, 'step_completions'>, teamId: string) {
  return eb.selectFrom('deletion_requests').select('id').where('team_id', '=', teamId);
}
