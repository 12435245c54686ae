import type { WebClient } from '@slack/web-api';
import {
  type MintApiClient,
  notFoundCount,
  recordHighlights,
  type MintRecord,
} from '../../platform/mint/mint-api-client.js';
import { runAudited } from '../../platform/mint/run-audited.js';
import { sendDirectMessage } from '../../platform/blocks/direct-message.js';
import type {
  ApprovalResult,
  DeletionRequest,
  Transition,
  WorkspaceDeletionRequests,
} from '../../platform/store/deletion-requests.js';
import type { DeletionContext } from './deletion-context.js';
import { approvalNotCounted, rejectionNotCounted } from './decision-rules.js';
import { approvalMessage, outcomeMessage, requesterMessage } from './messages.js';
import { completeWaitingStep } from './step-completion.js';

/*
 * How a request changes, top to bottom: a decision (an approval, a rejection), the deletion's run, and then
 * the request shown everywhere it is shown. Every change is a compare-and-set written with its audit entry in
 * one transaction, so of any number of callers on any number of replicas one wins, and only the winner
 * publishes. The person who made the change is answered (`answer`: a modal's ack) as soon as it is stored,
 * before anything slow (Slack allows 3 s).
 */

/** What a run works with in the request's workspace: its Slack client and its own Mint account. */
export interface RunWith {
  slack: WebClient;
  mint: MintApiClient;
}

/**
 * One approver's approval of `request` (found in its workspace, and the rules passed): counted, or refused with
 * why when it changes nothing (approved before by this approver, or no longer pending). The approval that
 * completes the quorum turns the request to approved, and the deletion runs at once; an approval that does not
 * only shows everywhere ("1 of 2 approvals"). Resolves with the request as it ends up.
 */
export async function approveRequest(
  ctx: DeletionContext,
  using: RunWith,
  request: Pick<DeletionRequest, 'id' | 'teamId'>,
  approverId: string,
  answer: (recorded: DeletionRequest) => Promise<void>,
): Promise<DeletionRequest> {
  const approval = await recordApproval(ctx, request.teamId, request.id, approverId);
  if (approval.outcome !== 'recorded' && approval.outcome !== 'approved')
    throw approvalNotCounted(approval, request.id);
  const recorded = approval.request;
  await answer(recorded);
  if (recorded.status === 'pending') {
    await publishRequest(ctx, using.slack, recorded);
    return recorded;
  }
  const run = await runDeletion(ctx, using, recorded, ['approved'], approverId);
  return run.request ?? recorded;
}

/**
 * One approver's approval of a request of workspace `teamId`, and its audit entry, in one transaction (both
 * are written, or neither). The approval that completes the quorum turns the request to approved.
 */
async function recordApproval(
  ctx: Pick<DeletionContext, 'store'>,
  teamId: string,
  requestId: string,
  approverId: string,
): Promise<ApprovalResult> {
  return ctx.store.transaction(async (tx) => {
    const result = await tx.deletionApprovals.approve(teamId, requestId, approverId);
    if (result.outcome === 'recorded' || result.outcome === 'approved') {
      const r = result.request;
      const count = r.approverIds.length;
      await tx.audit.record({
        actorId: approverId,
        teamId,
        operation: 'customers.delete.approve',
        inputs: {
          requestId: r.id,
          customers: r.customerIds.length,
          approval: count,
          approvalsNeeded: r.approvalsNeeded,
        },
        outcome: result.outcome === 'approved' ? 'approved' : `approval ${count} of ${r.approvalsNeeded}`,
      });
    }
    return result;
  });
}

/**
 * A rejection of `request`, with its optional reason: one rejection ends the request, whatever approvals it
 * had. Refused with why when the request is no longer pending. The requester is told by DM.
 */
export async function rejectRequest(
  ctx: DeletionContext,
  slack: WebClient,
  request: Pick<DeletionRequest, 'id' | 'teamId'>,
  userId: string,
  note: string | undefined,
  answer: (rejected: DeletionRequest) => Promise<void>,
): Promise<DeletionRequest> {
  const { id, teamId } = request;
  const decided = await auditedTransition(ctx, teamId, userId, 'customers.delete.reject', (requests) =>
    requests.decide(id, 'rejected', userId, note),
  );
  if (!decided.won) throw rejectionNotCounted(decided.request, id);
  await answer(decided.request);
  await publishAndNotify(ctx, slack, decided.request);
  return decided.request;
}

/**
 * A change of a request's status and its audit entry, in one transaction: both are written, or neither.
 * Only the caller that wins the compare-and-set writes an entry. `change` sees the requests of workspace
 * `teamId` only.
 */
export async function auditedTransition(
  ctx: Pick<DeletionContext, 'store'>,
  teamId: string,
  actorId: string,
  operation: string,
  change: (requests: WorkspaceDeletionRequests) => Promise<Transition>,
): Promise<Transition> {
  return ctx.store.transaction(async (tx) => {
    const result = await change(tx.deletionRequests.forTeam(teamId));
    if (result.won) {
      const r = result.request;
      await tx.audit.record({
        actorId,
        teamId,
        operation,
        inputs: { requestId: r.id, customers: r.customerIds.length },
        outcome: r.status,
        detail: r.decisionNote ?? r.outcomeDetail,
      });
    }
    return result;
  });
}

export type RunResult = { ran: true; request: DeletionRequest } | { ran: false; request: DeletionRequest | undefined };

/**
 * Sends an approved (or failed, or interrupted) request's deletion to the Mint service exactly once per
 * claim: the claim is a compare-and-set, so of concurrent callers only one sends PATCH /v1/customer/delete.
 * The outcome is recorded (done/failed), shown in the approval message, and sent to the requester. `asked`
 * is the request as the caller found it in its workspace: the run stays in that workspace, with its Mint
 * account (`using.mint`) and its Slack (`using.slack`).
 */
export async function runDeletion(
  ctx: DeletionContext,
  using: RunWith,
  asked: Pick<DeletionRequest, 'id' | 'teamId'>,
  from: ReadonlyArray<'approved' | 'failed' | 'attention'>,
  by: string,
): Promise<RunResult> {
  const requestId = asked.id;
  const requests = ctx.store.deletionRequests.forTeam(asked.teamId);
  const claim = await requests.claimRun(requestId, from, by);
  if (!claim.won) return { ran: false, request: claim.request };
  const request = claim.request;
  const logger = ctx.logger.child({ requestId, attempt: request.attempts });
  await publishRequest({ ...ctx, logger }, using.slack, request);

  const outcome = await runAudited(
    { store: ctx.store, logger },
    { userId: by, teamId: request.teamId },
    {
      operation: 'customers.delete.run',
      inputs: { requestId, attempt: request.attempts, customerIds: request.customerIds },
      history: null, // the request's own row follows it (settleAskedEntry)
      thing: 'the customers',
      done: 'deleted',
      detail: (answer) => describeAnswer(answer),
    },
    () => using.mint.deleteCustomers(request.customerIds),
  );
  const detail = outcome.ok ? describeAnswer(outcome.result) : outcome.reason;
  const notFound = outcome.ok ? notFoundCount(outcome.result, request.customerIds.length) : undefined;
  let final: DeletionRequest;
  try {
    const finished = await requests.finishRun(requestId, outcome.ok ? 'done' : 'failed', detail, notFound);
    final = finished.request ?? request;
  } catch (error) {
    // The deletion was sent but its outcome cannot be stored: say so now; the request stays "running" in
    // the database, and the sweeper marks it for attention once the database is back.
    logger.error({ err: error, succeeded: outcome.ok }, 'could not record the outcome of a deletion');
    const what = outcome.ok ? `the Mint service said it deleted them (${detail})` : `it failed: ${detail}`;
    final = {
      ...request,
      status: 'attention',
      outcomeDetail: `the app could not record the outcome (database unavailable); ${what}`,
    };
  }
  await publishAndNotify({ ...ctx, logger }, using.slack, final);
  return { ran: true, request: final };
}

/** The service's answer in a few words (its fields are not specified): lists by size, values as they are. */
function describeAnswer(answer: MintRecord): string {
  const parts = recordHighlights(answer).map(([key, value]) => `${key}: ${value}`);
  return parts.length > 0 ? parts.join(', ') : 'OK';
}

/** Rounds of "publish, then check nothing newer landed meanwhile" before giving up to the next change. */
const PUBLISH_ROUNDS = 3;

/**
 * Shows a request's current state everywhere it is shown: the approval message (status, buttons), the
 * requester's DM (Cancel goes once it is no longer pending) and, once it has ended, the workflow step waiting
 * for it. Called by whoever made a transition.
 *
 * Several changes can be published at once (approvals on different replicas, a slow Slack retrying one
 * update): whatever is shown is read from the database just before, and read again after the update; if the
 * request changed meanwhile, it is shown again. So the last update to land always shows the newest state. The
 * given request is shown only when the database cannot be read (a run whose outcome could not be stored).
 *
 * `slack` is the bot's client in the request's workspace: the listener's own, or the workspace's in background
 * work. Only that workspace's requests, approvers and Home tabs are read.
 */
export async function publishRequest(ctx: DeletionContext, slack: WebClient, request: DeletionRequest): Promise<void> {
  let shown = (await latest(ctx, request)) ?? request;
  for (let round = 1; ; round += 1) {
    await showEverywhere(ctx, slack, shown);
    const now = await latest(ctx, request);
    if (!now || stateOf(now) === stateOf(shown) || round >= PUBLISH_ROUNDS) break;
    shown = now;
  }
  await refreshHomesShowing(ctx, shown);
  // A workflow waiting for this request hears how it ended (a no-op while it has not ended). Only a request a
  // workflow asked (origin `workflow <execution id>`) can have a step waiting: no other is looked up.
  if (!shown.origin?.startsWith('workflow')) return;
  await completeWaitingStep(ctx, slack, shown).catch((error: unknown) =>
    ctx.logger.warn(
      { err: error, requestId: request.id },
      'could not complete the workflow step; it is tried again later',
    ),
  );
}

async function latest(ctx: DeletionContext, request: DeletionRequest): Promise<DeletionRequest | undefined> {
  return ctx.store.deletionRequests
    .forTeam(request.teamId)
    .get(request.id)
    .catch(() => undefined);
}

/** What the messages show of a request: equal states render the same messages. */
function stateOf(r: DeletionRequest): string {
  return JSON.stringify([r.status, r.updatedAt.getTime(), r.approverIds, r.attempts, r.outcomeDetail ?? null]);
}

async function showEverywhere(ctx: DeletionContext, slack: WebClient, request: DeletionRequest): Promise<void> {
  const updates: Array<Promise<unknown>> = [];
  if (request.approvalChannelId && request.approvalMessageTs) {
    const content = approvalMessage(request, ctx.approvers.mentions(request.approvers, request.teamId));
    updates.push(slack.chat.update({ channel: request.approvalChannelId, ts: request.approvalMessageTs, ...content }));
  }
  if (request.requesterMessageChannel && request.requesterMessageTs) {
    const content = requesterMessage(request);
    updates.push(
      slack.chat.update({ channel: request.requesterMessageChannel, ts: request.requesterMessageTs, ...content }),
    );
  }
  for (const result of await Promise.allSettled(updates)) {
    if (result.status === 'rejected')
      ctx.logger.warn({ err: result.reason, requestId: request.id }, 'could not update a message of the request');
  }
}

/**
 * Publishes the state and tells the requester by DM (for decisions and outcomes they did not make). The new DM
 * is the one that carries the outcome: Slack notifies of a new message, never of an edit, and the requester
 * must hear of an end they did not make. Their first DM, edited in place, drops its Cancel and points here
 * (see requesterMessage), so each outcome reaches them once.
 */
export async function publishAndNotify(
  ctx: DeletionContext,
  slack: WebClient,
  request: DeletionRequest,
): Promise<void> {
  await publishRequest(ctx, slack, request);
  await sendDirectMessage(slack, request.requesterId, outcomeMessage(request), ctx.logger);
}

/**
 * Brings up to date, in the background, every Home that shows this request: its requester's (their requests
 * waiting, their activity, which follows the request's status), its approvers' (the requests waiting for them:
 * it comes, shows its approvals so far, and goes once it has ended), and those of whoever approved or decided
 * it. Only these people's Homes in the request's workspace are read; nobody else's.
 */
export async function refreshHomesShowing(
  ctx: Pick<DeletionContext, 'approvers' | 'home'>,
  request: Pick<DeletionRequest, 'teamId' | 'requesterId' | 'approverIds' | 'decidedBy' | 'runBy' | 'approvers'>,
): Promise<void> {
  const people = await ctx.approvers.everyoneKnown(request.approvers, request.teamId);
  for (const person of [request.requesterId, ...request.approverIds, request.decidedBy, request.runBy])
    if (person) people.add(person);
  ctx.home.refreshIn(request.teamId, people);
}
