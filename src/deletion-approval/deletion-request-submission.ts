import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { DeletionRequest } from '../store/deletion-requests.js';
import { updateModal } from '../slack-ui/update-modal.js';
import { auditedTransition } from './audited-transition.js';
import { type DeletionContext, isApprover } from './deletion-context.js';
import { approvalMessage, fullListMessages, requesterMessage } from './deletion-messages.js';
import { boxesOf, checkDeletionForm, deletionRequestView, readDeletionForm } from './deletion-request-form.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import { notConfiguredText, type DeletionSettings } from './deletion-settings.js';
import { postThreadMessages } from './thread-messages.js';
import { splitCustomerIds } from '../mint-api/customer-ids.js';
import { customerCount, repeatsDropped } from './customer-count.js';
import { approvalsNeeded } from './quorum.js';
import { firstDelivery, submissionKey } from '../slack-ui/deliver-once.js';
import { noteOutcome, requestOf } from '../observability/request-context.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * A deletion request submitted: checked (inline errors), stored first (pending, with its audit entry),
 * then posted to the approval channel with Approve/Reject, and the requester is told its id and where it
 * waits. If the approval message cannot be posted, the request is cancelled at once and the requester
 * told why: nothing waits where nobody can see it.
 */
export function handleDeletionRequestSubmission(ctx: DeletionContext) {
  return async ({ ack, body, view, client, context }: Args): Promise<void> => {
    const slackRequest = requestOf(context);
    const settings = ctx.settings;
    if (!settings) {
      noteOutcome(slackRequest, 'refused');
      await ack({
        response_action: 'update',
        view: noticeModal('Request deletion', notConfiguredText(ctx.missingSettings)),
      });
      return;
    }
    const boxes = boxesOf(view.private_metadata);
    const values = readDeletionForm(view.state.values, boxes);
    const checked = checkDeletionForm(values);
    if (!checked.ok) {
      noteOutcome(slackRequest, 'invalid_input');
      await ack({ response_action: 'errors', errors: checked.errors });
      return;
    }
    await ack({
      response_action: 'update',
      view: noticeModal('Request deletion', ':hourglass_flowing_sand: Recording the request…'),
    });
    // Acknowledged first (Slack waits 3 s); a second delivery of the same submission ends here.
    if (!(await firstDelivery(ctx.store, submissionKey(body)))) return;
    const requesterId = body.user.id;
    const logger = ctx.logger.child({ user: requesterId, operation: 'customers.delete.request' });
    const showForm = (problem: string) =>
      updateModal(
        client,
        view.id,
        deletionRequestView({ boxes, prefill: values.boxes.flatMap(splitCustomerIds), reason: values.reason, problem }),
        logger,
      );

    let request: DeletionRequest;
    try {
      request = await createRequest(ctx, settings, requesterId, body.team?.id ?? body.user.team_id, checked);
    } catch (error) {
      logger.error({ err: error }, 'could not store the deletion request');
      await showForm(
        '*The request could not be recorded* (the database is unavailable), so nothing was sent to the approvers. Try again in a moment.',
      );
      return;
    }

    const posted = await postApprovalMessage(ctx, settings, request);
    if (!posted.ok) {
      await auditedTransition(ctx, 'system', 'customers.delete.cancel', (requests) =>
        requests.cancel(request.id, requesterId),
      );
      await showForm(
        `*The approval channel did not take the request* (${posted.error}), so it was cancelled and nothing waits for approval. Ask the app's operator to invite the app to <#${settings.approvalChannelId}>.`,
      );
      return;
    }
    const waiting = (await ctx.store.deletionRequests.get(request.id)) ?? request;
    const dm = await client.chat
      .postMessage({ channel: requesterId, ...requesterMessage(waiting) })
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not send the request DM');
        return undefined;
      });
    if (dm?.ts && dm.channel)
      await ctx.store.deletionRequests.setRequesterMessage(request.id, dm.channel, dm.ts).catch(() => undefined);

    ctx.home.refresh([requesterId], isApprover(ctx));
    await updateModal(
      client,
      view.id,
      noticeModal(
        'Request deletion',
        `:inbox_tray: Request *${request.id}* to delete *${customerCount(request.customerIds.length)}*${repeatsDropped(request.duplicatesRemoved)} is waiting for approval in <#${settings.approvalChannelId}>.\nYou can cancel it from the direct message the app sent you.`,
      ),
      logger,
    );
  };
}

async function createRequest(
  ctx: DeletionContext,
  settings: DeletionSettings,
  requesterId: string,
  teamId: string | undefined,
  checked: { customerIds: string[]; duplicatesRemoved: number; reason: string },
): Promise<DeletionRequest> {
  const now = new Date();
  return ctx.store.transaction(async (tx) => {
    const request = await tx.deletionRequests.create(
      {
        teamId,
        requesterId,
        customerIds: checked.customerIds,
        duplicatesRemoved: checked.duplicatesRemoved,
        reason: checked.reason,
        expiresAt: new Date(now.getTime() + settings.requestTtlHours * 3_600_000),
        approvalsNeeded: approvalsNeeded(settings.quorum, checked.customerIds.length),
      },
      now,
    );
    await tx.audit.record(
      {
        actorId: requesterId,
        teamId,
        operation: 'customers.delete.request',
        inputs: {
          requestId: request.id,
          customerIds: checked.customerIds,
          duplicatesRemoved: checked.duplicatesRemoved,
          reason: checked.reason,
        },
        outcome: 'pending',
        detail: request.id,
      },
      now,
    );
    return request;
  });
}

async function postApprovalMessage(
  ctx: DeletionContext,
  settings: DeletionSettings,
  request: DeletionRequest,
): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    const posted = await ctx.client.chat.postMessage({
      channel: settings.approvalChannelId,
      ...approvalMessage({ ...request, approvalChannelId: settings.approvalChannelId }, ctx.approvers.mentions()),
    });
    if (!posted.ts) return { ok: false, error: 'no message id' };
    await ctx.store.deletionRequests.setApprovalMessage(
      request.id,
      posted.channel ?? settings.approvalChannelId,
      posted.ts,
    );
    await postThreadMessages(
      ctx.patientClient,
      ctx.logger,
      { channel: posted.channel ?? settings.approvalChannelId, threadTs: posted.ts },
      fullListMessages(request),
    );
    return { ok: true };
  } catch (error) {
    ctx.logger.warn({ err: error, requestId: request.id }, 'could not post the approval message');
    return { ok: false, error: (error as { data?: { error?: string } }).data?.error ?? (error as Error).message };
  }
}
