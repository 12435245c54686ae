import type { Logger } from '../ops/telemetry/create-logger.js';
import { MintApiError } from './mint-api-error.js';
import { mintErrorText } from '../blocks/mint-error-text.js';
import type { HistoryMade } from '../store/history/entry.js';
import type { Store } from '../store/store.js';

export interface Actor {
  userId: string;
  teamId: string | undefined;
}

/** A failure's `outcome` is the Slack request's, when one asked for the operation (its listener returns it). */
export type AuditedOutcome<T> =
  { ok: true; result: T } | { ok: false; reason: string; outcome: 'failed' | 'upstream_error'; error?: MintApiError };

export interface AuditedOperation<T> {
  operation: string;
  /** Where it came from when not from a person in Slack's UI, e.g. `workflow Wf0123`. */
  origin?: string | undefined;
  inputs: Record<string, unknown>;
  /** What it makes, as History lists it (`null`: nothing History lists), written with its audit entry. */
  history: HistoryMade | null;
  /** What is being made, for messages: "the mint link". */
  thing: string;
  /** How it ends when it works: "created". */
  done: string;
  /** The audit detail of a success, e.g. the link URL. */
  detail: (result: T) => string;
}

/**
 * Runs one Mint operation under the audit log: recorded as pending first (if the database cannot take it,
 * nothing runs), then completed with its outcome. Failures come back as a reason to show the user.
 */
export async function runAudited<T>(
  deps: { store: Pick<Store, 'audit'>; logger: Logger },
  actor: Actor,
  operation: AuditedOperation<T>,
  work: () => Promise<T>,
): Promise<AuditedOutcome<T>> {
  let entryId: string;
  try {
    ({ id: entryId } = await deps.store.audit.start({
      actorId: actor.userId,
      teamId: actor.teamId,
      operation: operation.operation,
      origin: operation.origin,
      inputs: operation.inputs,
      history: operation.history,
    }));
  } catch (error) {
    deps.logger.error({ err: error, operation: operation.operation }, 'audit log unavailable; operation not run');
    return {
      ok: false,
      outcome: 'failed',
      reason: `The app cannot record this in its audit log right now (database unavailable), so nothing was ${operation.done}. Try again in a moment.`,
    };
  }
  // A failure's reason (as the person is told it) is kept for History's Details.
  const complete = (outcome: string, detail: string, reason?: string) =>
    deps.store.audit.complete(entryId, outcome, detail, reason).catch((error: unknown) => {
      deps.logger.error({ err: error, entryId, outcome }, 'could not record the outcome in the audit log');
    });

  try {
    const result = await work();
    await complete('succeeded', operation.detail(result));
    return { ok: true, result };
  } catch (error) {
    if (error instanceof MintApiError) {
      const reason = mintErrorText(error, operation.thing, operation.done);
      await complete('failed', error.message, reason);
      return { ok: false, outcome: 'upstream_error', reason, error };
    }
    deps.logger.error({ err: error, operation: operation.operation }, 'operation failed unexpectedly');
    const reason = `Something went wrong inside the app (it is logged for the operator); ${operation.thing} may not have been ${operation.done}.`;
    await complete('failed', 'internal error', reason);
    return { ok: false, outcome: 'failed', reason };
  }
}
