import type { WebClient } from '@slack/web-api';
import { failedCallOutcome, type FailedCallOutcome } from '../../platform/slack/web-api/slack-call-outcome.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import { DELETION_ASKED_OPERATION, type DeletionRequest } from '../../platform/store/deletion-requests.js';
import type { DeletionContext, DeletionSettings } from './deletion-context.js';
import { approvalMessage, fullListMessages, requesterMessage } from './messages.js';
import { auditedTransition, refreshHomesShowing } from './request-transitions.js';
import type { DeletionQuorum } from '../../platform/ops/config/config.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { MessageContent } from '../../platform/blocks/blocks.js';

/*
 * Multi-party approval: a request needs DELETION_QUORUM distinct approvers (DELETION_QUORUM_LARGE from
 * DELETION_LARGE_AT customers up; admins change both in Settings), never counting the requester, and one
 * rejection rejects it. The number is fixed on the request when it is made, so changing the settings never
 * changes what a pending request needs. The policy is here; the words for it are with each screen that says it
 * (the request form, the approval message, the decision modal, Home).
 */

/** Approvals a request of `customers` customers needs under `quorum`. */
export function approvalsNeeded(quorum: DeletionQuorum, customers: number): number {
  return quorum.large && customers >= quorum.large.fromCustomers ? quorum.large.approvals : quorum.approvals;
}

/**
 * Why a request of `requesterId` could never gather `needed` approvals, or undefined when it can: approvers
 * named only one by one (no user group that could grow), too few of them besides the requester. Said before
 * anything is stored, so nothing waits for approvals that cannot come.
 */
export function unreachableQuorum(
  approvers: { users: readonly string[]; userGroups: readonly string[] },
  requesterId: string,
  needed: number,
): string | undefined {
  if (approvers.userGroups.length > 0) return undefined;
  const others = approvers.users.filter((u) => u !== requesterId).length;
  if (others >= needed) return undefined;
  return `This request needs ${needed === 1 ? '1 approval' : `${needed} approvals from different approvers`}, but only ${others} of the approvers could approve a request of yours (the requester never counts), so nothing was recorded. Ask a settings admin (Settings on the app's Home) or the app's operator to add approvers or lower the quorum.`;
}

/** A checked request for deletion, however it was asked (form, message shortcut, workflow step). */
export interface DeletionAsk {
  requesterId: string;
  /** The workspace it is asked in: the request is stored, posted and decided there only. */
  teamId: string;
  customerIds: string[];
  duplicatesRemoved: number;
  reason: string;
  /** `workflow <execution id>` when a workflow step asks. */
  origin?: string | undefined;
  /** The permalink of the message it was asked from. */
  contextUrl?: string | undefined;
  /** The workflow step that waits for the request to end (its execution and token). */
  step?: { functionExecutionId: string; token: string } | undefined;
}

export type OpenedRequest =
  | { ok: true; request: DeletionRequest }
  | { ok: false; stage: 'store'; error: unknown }
  | { ok: false; stage: 'quorum'; error: string }
  | { ok: false; stage: 'post'; error: string; request: DeletionRequest };

/**
 * Opens a deletion request the one way there is: stored first (pending, with its audit entry and, for a
 * workflow, the step waiting for it, in one transaction), then posted to the approval channel with
 * Approve/Reject, and the requester is sent a DM with Cancel. If the approval message cannot be posted, the
 * request is cancelled at once: nothing waits where nobody can see it. `slack` is the bot's client in the
 * workspace asked in, and `settings` that workspace's.
 */
export async function openDeletionRequest(
  ctx: DeletionContext,
  slack: WebClient,
  settings: DeletionSettings,
  ask: DeletionAsk,
): Promise<OpenedRequest> {
  const unreachable = unreachableQuorum(
    settings.approvers,
    ask.requesterId,
    approvalsNeeded(settings.quorum, ask.customerIds.length),
  );
  if (unreachable) return { ok: false, stage: 'quorum', error: unreachable };
  let request: DeletionRequest;
  try {
    request = await storeRequest(ctx, settings, ask);
  } catch (error) {
    ctx.logger.error({ err: error, user: ask.requesterId }, 'could not store the deletion request');
    return { ok: false, stage: 'store', error };
  }
  const posted = await postApprovalMessage(ctx, slack, settings, request);
  if (!posted.ok) {
    // A post Slack did not confirm may be in the channel all the same: it is not posted again; the request is
    // cancelled, so that message's buttons do nothing, and the requester asks again.
    const why =
      posted.outcome === 'unknown'
        ? `Slack did not confirm the approval message in time; if it appeared in the approval channel it is void, and nothing waits for approval; ask again`
        : `the approval channel did not take it (${posted.error}), so nothing waits for approval; ask Mintlink's operator to invite the app to the approval channel`;
    const cancelled = await auditedTransition(ctx, ask.teamId, 'system', 'customers.delete.cancel', (requests) =>
      requests.cancel(request.id, ask.requesterId, why),
    );
    await refreshHomesShowing(ctx, cancelled.request ?? request);
    return { ok: false, stage: 'post', error: posted.error, request: cancelled.request ?? request };
  }
  const requests = ctx.store.deletionRequests.forTeam(ask.teamId);
  const waiting = (await requests.get(request.id)) ?? request;
  const dm = await slack.chat
    .postMessage({ channel: ask.requesterId, ...requesterMessage(waiting) })
    .catch((error: unknown) => {
      ctx.logger.warn({ err: error, requestId: request.id }, 'could not send the request DM');
      return undefined;
    });
  if (dm?.ts && dm.channel) await requests.setRequesterMessage(request.id, dm.channel, dm.ts).catch(() => undefined);
  await refreshHomesShowing(ctx, waiting);
  return { ok: true, request: waiting };
}

async function storeRequest(
  ctx: DeletionContext,
  settings: DeletionSettings,
  ask: DeletionAsk,
): Promise<DeletionRequest> {
  return ctx.store.transaction(async (tx) => {
    const request = await tx.deletionRequests.create({
      teamId: ask.teamId,
      requesterId: ask.requesterId,
      customerIds: ask.customerIds,
      duplicatesRemoved: ask.duplicatesRemoved,
      reason: ask.reason,
      ttlMs: settings.requestTtlHours * 3_600_000,
      approvalsNeeded: approvalsNeeded(settings.quorum, ask.customerIds.length),
      approvers: settings.approvers,
      origin: ask.origin,
      contextUrl: ask.contextUrl,
    });
    await tx.audit.start({
      actorId: ask.requesterId,
      teamId: ask.teamId,
      operation: DELETION_ASKED_OPERATION,
      origin: ask.origin,
      inputs: {
        requestId: request.id,
        customerIds: ask.customerIds,
        duplicatesRemoved: ask.duplicatesRemoved,
        reason: ask.reason,
        ...(ask.contextUrl ? { context: ask.contextUrl } : {}),
        // The policy it was opened under: later changes of the settings never apply to it.
        approvalsNeeded: request.approvalsNeeded,
        expiresAt: request.expiresAt.toISOString(),
      },
      detail: request.id, // how the request's changes find this entry to settle its outcome (settleAskedEntry)
      history: {
        kind: 'deletion',
        how: ask.origin ? 'workflow' : ask.contextUrl ? 'message' : 'form',
        requestId: request.id,
        customerIds: ask.customerIds,
        reason: ask.reason,
        context: ask.contextUrl,
      },
    });
    if (ask.step)
      await tx.stepCompletions.add(ask.teamId, {
        requestId: request.id,
        functionExecutionId: ask.step.functionExecutionId,
        sealedToken: ctx.stepTokens.seal(ask.step.token, request.id),
      });
    return request;
  });
}

async function postApprovalMessage(
  ctx: DeletionContext,
  slack: WebClient,
  settings: DeletionSettings,
  request: DeletionRequest,
): Promise<{ ok: true } | { ok: false; error: string; outcome: FailedCallOutcome }> {
  try {
    const posted = await slack.chat.postMessage({
      channel: settings.approvalChannelId,
      ...approvalMessage(
        { ...request, approvalChannelId: settings.approvalChannelId },
        ctx.approvers.mentions(request.approvers, request.teamId),
      ),
    });
    if (!posted.ts) return { ok: false, error: 'no message id', outcome: 'unknown' };
    await ctx.store.deletionRequests
      .forTeam(request.teamId)
      .setApprovalMessage(request.id, posted.channel ?? settings.approvalChannelId, posted.ts);
    // A long list goes on in the thread, with the workspace's patient client (it waits out rate limits).
    const patient = await ctx.reach.slack(request.teamId);
    if (patient)
      await postThreadMessages(
        patient,
        ctx.logger,
        { channel: posted.channel ?? settings.approvalChannelId, threadTs: posted.ts },
        fullListMessages(request),
      );
    return { ok: true };
  } catch (error) {
    ctx.logger.warn({ err: error, requestId: request.id }, 'could not post the approval message');
    return {
      ok: false,
      error: slackErrorCode(error) ?? (error instanceof Error ? error.message : String(error)),
      outcome: failedCallOutcome(error),
    };
  }
}

/**
 * Replies in a thread, one message after the other, with a client that waits out Slack's rate limit
 * (chat.postMessage allows about one message per second per channel, and a long list may need several).
 * A part that cannot be posted ends the thread there, and is logged.
 */
async function postThreadMessages(
  patientClient: WebClient,
  logger: Logger,
  where: { channel: string; threadTs: string },
  messages: readonly MessageContent[],
): Promise<void> {
  for (const [i, content] of messages.entries()) {
    try {
      await patientClient.chat.postMessage({ channel: where.channel, thread_ts: where.threadTs, ...content });
    } catch (error) {
      logger.error({ err: error, part: i + 1, of: messages.length }, 'could not post the full list in the thread');
      return;
    }
  }
}
