import type { DeletionRequest } from '../store/deletion-requests.js';
import { sendDirectMessage } from '../slack-ui/direct-message.js';
import { type DeletionContext, isApprover } from './deletion-context.js';
import { approvalMessage, outcomeMessage, requesterMessage } from './deletion-messages.js';
import { completeWaitingStep } from './step-completion.js';

/**
 * Shows a request's current state everywhere it is shown: the approval message (status, buttons), the
 * requester's DM (Cancel goes once it is no longer pending) and, once it has ended, the workflow step waiting
 * for it. Called by whoever made the transition.
 */
export async function publishRequest(ctx: DeletionContext, request: DeletionRequest): Promise<void> {
  const updates: Array<Promise<unknown>> = [];
  if (request.approvalChannelId && request.approvalMessageTs) {
    const content = approvalMessage(request, ctx.approvers.mentions());
    updates.push(
      ctx.client.chat.update({ channel: request.approvalChannelId, ts: request.approvalMessageTs, ...content }),
    );
  }
  if (request.requesterMessageChannel && request.requesterMessageTs) {
    const content = requesterMessage(request);
    updates.push(
      ctx.client.chat.update({ channel: request.requesterMessageChannel, ts: request.requesterMessageTs, ...content }),
    );
  }
  for (const result of await Promise.allSettled(updates)) {
    if (result.status === 'rejected')
      ctx.logger.warn({ err: result.reason, requestId: request.id }, 'could not update a message of the request');
  }
  ctx.home.refresh([request.requesterId], isApprover(ctx));
  // A workflow waiting for this request hears how it ended (a no-op while it has not ended, or for no step).
  await completeWaitingStep(ctx, request).catch((error: unknown) =>
    ctx.logger.warn(
      { err: error, requestId: request.id },
      'could not complete the workflow step; it is tried again later',
    ),
  );
}

/** Publishes the state and tells the requester by DM (for decisions and outcomes they did not make). */
export async function publishAndNotify(ctx: DeletionContext, request: DeletionRequest): Promise<void> {
  await publishRequest(ctx, request);
  await sendDirectMessage(ctx.client, request.requesterId, outcomeMessage(request), ctx.logger);
}
