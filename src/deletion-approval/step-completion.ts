import type { DeletionRequest } from '../store/deletion-requests.js';
import { slackErrorCode } from '../slack-api/slack-error-code.js';
import { unsealToken } from '../workflow-steps/sealed-token.js';
import { boundedStepError } from '../workflow-steps/step-failure.js';
import type { DeletionContext } from './deletion-context.js';

/** Output names of the "Request customer deletion" step, as declared in manifest.yml. */
export const DELETION_STEP_OUTPUTS = {
  status: 'Status',
  request_id: 'Request ID',
  customer_count: 'Customers deleted',
  approver: 'Approved by',
} as const;

/** How a step waiting for a request ends: its outputs, or the error the workflow shows. */
export type StepEnd = { outputs: Record<string, unknown> } | { error: string };

/** A claim older than this was left by a process that died: two Slack calls' deadlines and some slack. */
export const STEP_CLAIM_LEASE_MS = 30_000;

/** Slack's answers meaning the execution is over (or never existed): it can never be completed now. */
const GONE = new Set(['execution_not_in_running_state', 'function_execution_not_found']);
/** Slack's answers meaning the execution's token no longer works: the bot token is tried instead. */
const TOKEN_REFUSED = new Set(['invalid_auth', 'not_authed', 'token_expired', 'token_revoked', 'account_inactive']);

const ENDED = new Set<DeletionRequest['status']>(['done', 'failed', 'rejected', 'cancelled', 'expired']);

/** What the workflow is told when the request ends; undefined while it has not ended. */
export function stepEnd(r: DeletionRequest, ttlHours: number | undefined): StepEnd | undefined {
  switch (r.status) {
    case 'done':
      return {
        outputs: {
          status: 'approved and done',
          request_id: r.id,
          customer_count: r.customerIds.length,
          ...(r.decidedBy ? { approver: r.decidedBy } : {}),
        },
      };
    case 'failed':
      return {
        error: `Request ${r.id} was approved, but the deletion failed: ${r.outcomeDetail ?? 'no detail'}. An approver can try it again from the approval message; this workflow does not wait for that.`,
      };
    case 'rejected':
      return {
        error: `Request ${r.id} was rejected by an approver (Slack user ${r.decidedBy ?? 'unknown'})${r.decisionNote ? `: ${r.decisionNote}` : '.'} Nothing was deleted.`,
      };
    case 'cancelled':
      return { error: `Request ${r.id} was cancelled by its requester. Nothing was deleted.` };
    case 'expired':
      return {
        error: `Request ${r.id} expired without a decision${ttlHours ? ` after ${ttlHours} hours` : ''}. Nothing was deleted; run the workflow again to ask again.`,
      };
    default:
      return undefined;
  }
}

/**
 * Completes the workflow step waiting for this request, if one is and the request has ended: claimed with a
 * compare-and-set (so one replica does it, once), reported with the execution's token (unsealed) or, if that
 * no longer works, the bot token. When Slack cannot be told now, the step waits for the sweeper's next pass.
 * `end` replaces what the request's status would say (a request cancelled because it could not be posted).
 */
export async function completeWaitingStep(ctx: DeletionContext, request: DeletionRequest, end?: StepEnd) {
  if (!ENDED.has(request.status)) return;
  const result = end ?? stepEnd(request, ctx.settings?.requestTtlHours);
  if (!result) return;
  const claim = await ctx.store.stepCompletions.claim(request.id, STEP_CLAIM_LEASE_MS);
  if (!claim) return;
  const logger = ctx.logger.child({ requestId: request.id, functionExecution: claim.functionExecutionId });
  const token = unsealToken(ctx.stepTokenKey, claim.sealedToken);
  try {
    await report(ctx, claim.functionExecutionId, result, token);
    await ctx.store.stepCompletions.finish(request.id, 'outputs' in result ? 'completed' : 'failed');
    logger.info({ ended: 'outputs' in result ? 'completed' : 'failed' }, 'workflow step completed');
  } catch (error) {
    const code = slackErrorCode(error);
    if (code && GONE.has(code)) {
      logger.warn({ code }, 'the workflow step had already ended in Slack');
      await ctx.store.stepCompletions.finish(request.id, 'gone');
      return;
    }
    logger.warn({ err: error }, 'could not complete the workflow step; will try again');
    await ctx.store.stepCompletions.release(request.id);
  }
}

async function report(ctx: DeletionContext, executionId: string, end: StepEnd, token: string | undefined) {
  const send = (withToken: string | undefined) => {
    const auth = withToken ? { token: withToken } : {};
    return 'outputs' in end
      ? ctx.client.functions.completeSuccess({ ...auth, function_execution_id: executionId, outputs: end.outputs })
      : ctx.client.functions.completeError({
          ...auth,
          function_execution_id: executionId,
          error: boundedStepError(end.error),
        });
  };
  if (!token) return send(undefined);
  try {
    return await send(token);
  } catch (error) {
    const code = slackErrorCode(error);
    if (code && TOKEN_REFUSED.has(code)) return send(undefined);
    throw error;
  }
}

/** For the sweeper: every step whose request ended while nobody completed it (a crash, Slack away). */
export async function completeOverdueSteps(ctx: DeletionContext): Promise<void> {
  for (const id of await ctx.store.stepCompletions.dueRequestIds(STEP_CLAIM_LEASE_MS)) {
    const request = await ctx.store.deletionRequests.get(id);
    if (request) await completeWaitingStep(ctx, request);
  }
}
