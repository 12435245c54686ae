import type { WebClient } from '@slack/web-api';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { sendDirectMessage } from '../../platform/blocks/direct-message.js';
import type { DeletionContext } from './deletion-context.js';
import { approvalMessage, outcomeMessage, requesterMessage } from './deletion-messages.js';
import { refreshHomesShowing } from './refresh-homes.js';
import { completeWaitingStep } from './step-completion.js';

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
  // A workflow waiting for this request hears how it ended (a no-op while it has not ended, or for no step).
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
