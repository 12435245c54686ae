import type { ModalView } from '@slack/types';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { context, section } from '../../platform/blocks/blocks.js';
import { approvalProgress, approvalsMissing, customerCount, statusLine, idSections } from './messages.js';
import { textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { escapeAndCut } from '../../platform/blocks/mrkdwn.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { textValue } from '../../platform/blocks/view-state.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { DELETIONS } from './actions.js';
import { type DeletionContext, showOfferingAgain } from './deletion-context.js';
import { type SubmittedDecision, requestToDecide } from './decision-rules.js';
import { approveRequest, rejectRequest } from './request-transitions.js';

/*
 * The decision modal, in the order an approver meets it: Approve… or Reject… opens it (decision-buttons.ts)
 * over what the request asks; submitting it decides (the rules, then the request's transition), and it shows
 * the approval counted, the deletion running, then how the request ended.
 */

/** The rejection modal's optional reason, and its length limit (checked again on submission). */
export const REJECT_REASON_BLOCK = 'reject_reason';
const MAX_REJECT_REASON_LENGTH = 500;

/**
 * Shows exactly what approving deletes: the count and every ID. Submitting it approves. `metadata` binds the
 * view to the request (signed: see decision-rules.ts).
 */
export function approveView(r: DeletionRequest, metadata: string): ModalView {
  // With a quorum, only the last approval needed runs the deletion; the others are counted.
  const last = approvalsMissing(r) <= 1;
  const progress = approvalProgress(r);
  const customers = r.customerIds.length === 1 ? 'this *1 customer*' : `these *${customerCount(r.customerIds.length)}*`;
  return modal({
    callbackId: DELETIONS.forms.approve.callbackId,
    title: `Approve ${r.id}`,
    submit: last ? `Delete ${customerCount(r.customerIds.length)}` : 'Approve',
    close: 'Cancel',
    privateMetadata: metadata,
    blocks: [
      section(
        `${last ? `:warning: Approving deletes ${customers} for good` : `Your approval is counted, and deletes nothing yet: ${customers} ${r.customerIds.length === 1 ? 'is' : 'are'} deleted for good once ${approvalsMissing(r) - 1 === 1 ? 'one more approver approves' : `${approvalsMissing(r) - 1} more approvers approve`}`}, as <@${r.requesterId}> asked.\n*Reason:* ${escapeAndCut(r.reason, 1500)}`,
      ),
      ...idSections(r.customerIds),
      context(
        last
          ? `The deletion runs once, as soon as you press the button.${progress ? ` ${progress}; yours is the last one needed.` : ''} The requester and the approval channel see the outcome.`
          : `${progress}. The deletion runs once, when the last of the ${r.approvalsNeeded} approvals needed is given.`,
      ),
    ],
  });
}

/** Asks for an optional reason. Submitting it rejects; `metadata` as for approveView. */
export function rejectView(r: DeletionRequest, metadata: string): ModalView {
  return modal({
    callbackId: DELETIONS.forms.reject.callbackId,
    title: `Reject ${r.id}`,
    submit: 'Reject',
    close: 'Cancel',
    privateMetadata: metadata,
    blocks: [
      section(
        `Reject the request of <@${r.requesterId}> to delete *${customerCount(r.customerIds.length)}*? Nothing will be deleted.`,
      ),
      textInput({
        blockId: REJECT_REASON_BLOCK,
        label: 'Why',
        optional: true,
        multiline: true,
        hint: 'The requester and the approval channel see it.',
        maxLength: MAX_REJECT_REASON_LENGTH,
      }),
    ],
  });
}

/**
 * The approval modal submitted: counted; the last approval needed runs the deletion and shows its outcome.
 * Pushed over another capability's view (History's Details), it closes once counted and that view shows the
 * request as it is now: the approval, then the deletion's outcome.
 */
export function handleApproveSubmission(ctx: DeletionContext) {
  return async (args: FormRequest): Promise<Ended> => {
    // Approving may run the deletion, with the workspace's own Mint account: without one, nothing is counted
    // and the approver is told how to connect it. (Rejecting never needs it.)
    const { teamId } = args;
    const mint = await ctx.mintIn(teamId);
    const { request, under } = await requestToDecide(ctx, submitted(args, teamId), 'approve');
    const approved = await approveRequest(ctx, { slack: args.client, mint }, request, args.body.user.id, (recorded) =>
      under
        ? args.ack().then(() => showOfferingAgain(ctx, submitterIn(args, teamId), under))
        : // Counted but more are needed: "1 of 2 approvals"; the last one needed: "Deleting…" while it runs.
          args.ack({
            response_action: 'update',
            view: recorded.status === 'pending' ? approvalRecordedView(recorded) : deletingView(recorded),
          }),
    );
    if (approved.status === 'pending') return;
    // The view beneath was shown again once already: this update is the newest state whatever its hash now.
    if (under) await showOfferingAgain(ctx, submitterIn(args, teamId), { ...under, hash: undefined });
    else await updateModal(args.client, args.view.id, outcomeView(approved), ctx.logger);
    return approved.status === 'failed' ? 'upstream_error' : undefined;
  };
}

/**
 * The rejection modal submitted, with its optional reason. The reason comes from the client, so the form's
 * 500-character limit is checked here too (inline, before anything is decided). Pushed over another
 * capability's view, it closes and that view shows the rejection.
 */
export function handleRejectSubmission(ctx: DeletionContext) {
  return async (args: FormRequest): Promise<Ended> => {
    const note = textValue(args.view.state.values, REJECT_REASON_BLOCK);
    if (note !== undefined && note.length > MAX_REJECT_REASON_LENGTH) {
      return args.ack({
        response_action: 'errors',
        errors: {
          [REJECT_REASON_BLOCK]: `The reason is ${note.length} characters long; keep it to ${MAX_REJECT_REASON_LENGTH}.`,
        },
      });
    }
    const { teamId } = args;
    const { request, under } = await requestToDecide(ctx, submitted(args, teamId), 'reject');
    await rejectRequest(ctx, args.client, request, args.body.user.id, note, (rejected) =>
      under
        ? args.ack().then(() => showOfferingAgain(ctx, submitterIn(args, teamId), under))
        : args.ack({ response_action: 'update', view: outcomeView(rejected) }),
    );
  };
}

/** A submitted decision modal, as the rules read it. */
function submitted({ view, body }: FormRequest, teamId: string): SubmittedDecision {
  return { view, userId: body.user.id, teamId };
}

/** Who shows the view beneath a submitted decision again: the submitter, in the submission's workspace. */
function submitterIn(args: FormRequest, teamId: string) {
  return { client: args.client, teamId, userId: args.body.user.id };
}

/** The approval modal after an approval that was counted but is not the last one needed. */
function approvalRecordedView(r: DeletionRequest): ModalView {
  const missing = approvalsMissing(r);
  return noticeModal(
    `Request ${r.id}`,
    `:ballot_box_with_check: Your approval is recorded: ${approvalProgress(r)}.\nNothing is deleted until ${missing} more approver${missing === 1 ? '' : 's'} approve${missing === 1 ? 's' : ''}; the approval channel shows when.`,
  );
}

/** The approval modal while the deletion its approval started runs. */
function deletingView(r: DeletionRequest): ModalView {
  return modal({
    title: `Approve ${r.id}`,
    close: 'Close',
    blocks: [
      section(`:hourglass_flowing_sand: Deleting ${customerCount(r.customerIds.length)}…`),
      context('The outcome also shows in the approval channel, so you can close this.'),
    ],
  });
}

/** The decision modal once the request is decided or its deletion has run: where it stands. */
function outcomeView(r: DeletionRequest): ModalView {
  return noticeModal(`Request ${r.id}`, statusLine(r));
}
