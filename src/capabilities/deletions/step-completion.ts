import type { WebClient } from '@slack/web-api';
import {
  CANCELLED_BY_REQUESTER,
  ENDED_STATUSES,
  type DeletionRequest,
} from '../../platform/store/deletion-requests.js';
import { REPORT_WORST_CASE_MS, type StepEnd, reportStepEnd } from '../../platform/slack/workflow-steps/report-step.js';
import type { DeletionContext } from './deletion-context.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';

/** Output names of the "Request deletion" step, as declared in manifest.yml. */
export const DELETION_STEP_OUTPUTS = {
  status: 'Status',
  request_id: 'Request ID',
  customer_count: 'Customers deleted',
  approver: 'Approved by',
  approvers: 'All approvers',
} as const;

/** A claim older than this was left by a process that died: longer than any report can take. */
export const STEP_CLAIM_LEASE_MS = REPORT_WORST_CASE_MS + 30_000;

/** A step of a workspace that cannot be reached (no installation) is looked at again this much later. */
const GONE_RETRY_MS = 3_600_000;

/** Reports tried before giving up: with the waits below, about a day. */
const MAX_ATTEMPTS = 12;
/** 30 s, 1 min, 2 min... up to 4 h between tries. */
const retryDelayMs = (attempts: number) => Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 4 * 3_600_000);

/** What the workflow is told when the request ends; undefined while it has not ended. */
export function stepEnd(r: DeletionRequest, ttlHours: number | undefined): StepEnd | undefined {
  switch (r.status) {
    case 'done':
      return {
        outputs: {
          status: 'approved and done',
          request_id: r.id,
          customer_count: r.customerIds.length,
          // The approval that completed the quorum, and everyone who approved, in order.
          ...(r.decidedBy ? { approver: r.decidedBy } : {}),
          approvers: r.approverIds.length > 0 ? r.approverIds : r.decidedBy ? [r.decidedBy] : [],
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
      return {
        error:
          !r.decisionNote || r.decisionNote === CANCELLED_BY_REQUESTER
            ? `Request ${r.id} was cancelled by its requester. Nothing was deleted.`
            : `Request ${r.id} was cancelled: ${r.decisionNote}. Nothing was deleted.`,
      };
    case 'expired':
      return {
        error: `Request ${r.id} expired without a decision${ttlHours ? ` after ${ttlHours} hour${ttlHours === 1 ? '' : 's'}` : ''}. Nothing was deleted; run the workflow again to ask again.`,
      };
    default:
      // Pending, approved, running, or interrupted ("attention": an approver may retry): not ended yet.
      return undefined;
  }
}

/**
 * Completes the workflow step waiting for this request, if one is and the request has ended: claimed with a
 * compare-and-set (so one replica does it, once), reported with the execution's token (unsealed) or, if that
 * no longer works, the bot token of the request's workspace (`slack`'s). When Slack cannot be told now, the
 * step waits for a later try (backing off; after a day of refusals it is given up, and the error logged).
 */
export async function completeWaitingStep(
  ctx: DeletionContext,
  slack: WebClient,
  request: DeletionRequest,
): Promise<void> {
  if (!ENDED_STATUSES.has(request.status)) return;
  const teamId = request.teamId;
  const end = stepEnd(request, request.status === 'expired' ? requestTtlHours(ctx, teamId) : undefined);
  if (!end) return;
  const steps = ctx.store.stepCompletions;
  const claim = await steps.claim(teamId, request.id, STEP_CLAIM_LEASE_MS);
  if (!claim) return;
  const logger = ctx.logger.child({ requestId: request.id, functionExecution: claim.functionExecutionId });
  const token = ctx.stepTokens.open(claim.sealedToken, claim.requestId);
  try {
    // Execution tokens are short-lived; a request decided hours later is reported with the bot token.
    const reported = await reportStepEnd(slack, claim.functionExecutionId, end, {
      tokens: [token, undefined],
      retryWaitMs: ctx.slackCalls.retryWaitMs,
    });
    const result = reported === 'gone' ? 'gone' : 'outputs' in end ? 'completed' : 'failed';
    await steps.finish(teamId, request.id, result);
    if (result === 'gone') logger.warn('the workflow step had already ended in Slack');
    else logger.info({ ended: result }, 'workflow step completed');
  } catch (error) {
    const attempts = claim.attempts + 1;
    if (attempts < MAX_ATTEMPTS) {
      await steps.release(teamId, request.id, retryDelayMs(attempts));
      logger.warn({ err: error, attempts }, 'could not complete the workflow step; will try again');
      return;
    }
    await steps.finish(teamId, request.id, 'abandoned');
    logger.error({ err: error, attempts }, 'Slack kept refusing the end of a workflow step; given up');
  }
}

/** The workspace's request lifetime, which an expired request's end names; undefined where it is not set up. */
function requestTtlHours(ctx: Pick<DeletionContext, 'settingsIn'>, teamId: string): number | undefined {
  const configured = ctx.settingsIn(teamId);
  return configured.ok ? configured.settings.requestTtlHours : undefined;
}

/**
 * Background work: completes the steps whose request ended while nobody could tell Slack (a crash, Slack
 * away), oldest first, within a time budget per pass so a slow Slack holds nothing else back. Each with the
 * token of its own workspace; the step of a workspace that is gone waits (it is looked at again later, and
 * ended for good when the workspace's uninstall is heard), without holding the others back.
 */
export function stepCompleterJob(ctx: DeletionContext, intervalMs: number): Job {
  const pass = async () => {
    const until = Date.now() + intervalMs * 4;
    for (const { teamId, id } of await ctx.store.stepCompletions.due(STEP_CLAIM_LEASE_MS)) {
      if (Date.now() > until) return;
      const slack = await ctx.reach.slack(teamId);
      if (!slack) {
        await ctx.store.stepCompletions.postpone(teamId, id, GONE_RETRY_MS);
        continue;
      }
      const request = await ctx.store.deletionRequests.forTeam(teamId).get(id);
      if (request) await completeWaitingStep(ctx, slack, request);
    }
  };
  return {
    name: 'workflow step completions',
    everyMs: intervalMs,
    run: pass,
    failed: (error) => ctx.logger.warn({ err: error }, 'completing workflow steps failed; will try again'),
  };
}
