import { updateModal } from '../../platform/blocks/update-modal.js';
import { type DeletionContext, settingsOrRefusal } from './deletion-context.js';
import {
  boxesOf,
  checkDeletionForm,
  deletionRequestView,
  readDeletionForm,
  signedSourceOf,
} from './deletion-request-form.js';
import { permalinkOf, verifySource } from './message-source.js';
import { openDeletionRequest } from './open-request.js';
import { escapeMrkdwn } from '../../platform/blocks/mrkdwn.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { splitCustomerIds } from '../../platform/mint/customer-ids.js';
import { customerCount, repeatsDropped } from './messages.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';

/*
 * Once the form is submitted, its title no longer asks "Request deletion" (the form's, which comes back with the
 * form when the request could not be opened): while it is recorded it names the request, then says it was made.
 * Slack allows 24 characters.
 */
const TITLE_RECORDING = 'Deletion request';
const TITLE_REQUESTED = 'Deletion requested';

/**
 * A deletion request submitted: checked (inline errors), then opened (open-request.ts) with the permalink of
 * the message it was asked from, if any; the requester is told its id and where it waits, or, when it could
 * not be stored or posted, why, in the form, still filled.
 */
export function handleDeletionRequestSubmission(ctx: DeletionContext) {
  return async ({ ack, body, view, client, teamId }: FormRequest): Promise<Ended> => {
    const settings = settingsOrRefusal(ctx, teamId);
    // The deletion would run with the workspace's own Mint account: without one, nothing is asked.
    await ctx.mintIn(teamId);
    const boxes = boxesOf(view.private_metadata);
    const signedSource = signedSourceOf(view.private_metadata);
    const source = verifySource(ctx.decisionKeys, teamId, signedSource);
    const values = readDeletionForm(view.state.values, boxes);
    const checked = checkDeletionForm(values);
    if (!checked.ok) return ack({ response_action: 'errors', errors: checked.errors });
    await ack({
      response_action: 'update',
      view: noticeModal(TITLE_RECORDING, ':hourglass_flowing_sand: Recording the request…'),
    });
    // Acknowledged first (Slack waits 3 s); a second delivery of the same submission ends in ack.
    const requesterId = body.user.id;
    const logger = ctx.logger.child({ user: requesterId, operation: 'customers.delete.request' });
    const showForm = (problem: string) =>
      updateModal(
        client,
        view.id,
        deletionRequestView({
          boxes,
          prefill: values.boxes.flatMap((text) => splitCustomerIds(text)),
          reason: values.reason,
          problem,
          quorum: settings.quorum,
          ...(source && signedSource ? { source: signedSource } : {}),
        }),
        logger,
      );

    const contextUrl = source ? await permalinkOf({ client, logger }, source) : undefined;
    const unlinked =
      source && !contextUrl
        ? '\nSlack did not give the link of the message it was asked from, so the approvers see the request without it.'
        : '';
    const opened = await openDeletionRequest(ctx, client, settings, {
      requesterId,
      teamId,
      customerIds: checked.customerIds,
      duplicatesRemoved: checked.duplicatesRemoved,
      reason: checked.reason,
      contextUrl,
    });
    if (!opened.ok && opened.stage === 'quorum') {
      await showForm(`*The request cannot be approved as things stand.* ${opened.error}`);
      return 'refused';
    }
    if (!opened.ok && opened.stage === 'store') {
      await showForm(
        '*The request could not be recorded* (the database is unavailable), so nothing was sent to the approvers. Try again in a moment.',
      );
      return 'failed';
    }
    if (!opened.ok) {
      await showForm(
        `*The approval channel did not take the request* (${escapeMrkdwn(opened.error)}), so it was cancelled and nothing waits for approval. Ask the app's operator to invite the app to <#${settings.approvalChannelId}>.`,
      );
      return 'upstream_error';
    }
    const { request } = opened;
    await updateModal(
      client,
      view.id,
      noticeModal(
        TITLE_REQUESTED,
        `:inbox_tray: Request *${request.id}* to delete *${customerCount(request.customerIds.length)}*${repeatsDropped(request.duplicatesRemoved)} is waiting for approval in <#${settings.approvalChannelId}>.\nYou can cancel it from the direct message the app sent you.${unlinked}`,
      ),
      logger,
    );
  };
}
