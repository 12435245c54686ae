import type { ModalView } from '@slack/types';
import { DELETIONS } from './actions.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { context, section } from '../../platform/blocks/blocks.js';
import { textInput } from '../../platform/blocks/inputs.js';
import { modal } from '../../platform/blocks/modal.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { escapeAndCut } from '../../platform/blocks/mrkdwn.js';
import { idSections, statusLine } from './deletion-messages.js';
import { customerCount } from './customer-count.js';
import { approvalProgress, approvalsMissing } from './quorum.js';

export const REJECT_REASON_BLOCK = 'reject_reason';
export const MAX_REJECT_REASON_LENGTH = 500;

/**
 * Shows exactly what approving deletes: the count and every ID. Submitting it approves. `metadata` binds the
 * view to the request (signed: see decision-metadata.ts).
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

export function deletingView(r: DeletionRequest): ModalView {
  return modal({
    title: `Approve ${r.id}`,
    close: 'Close',
    blocks: [
      section(`:hourglass_flowing_sand: Deleting ${customerCount(r.customerIds.length)}…`),
      context('The outcome also shows in the approval channel, so you can close this.'),
    ],
  });
}

/** Said in the modal when a decision view comes back with metadata the app did not sign: nothing is decided. */
/** A decision form whose signed metadata came back changed. */
export const CHANGED_FORM_TEXT = ':no_entry: This form was changed, so nothing was decided. Open the request again.';

export function outcomeView(r: DeletionRequest): ModalView {
  return noticeModal(`Request ${r.id}`, statusLine(r));
}
