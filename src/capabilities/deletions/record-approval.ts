import type { ModalView } from '@slack/types';
import type { ApprovalResult } from '../../platform/store/deletion-approvals.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import type { DeletionContext } from './deletion-context.js';
import { alreadyDecidedText, notFoundText } from './deletion-messages.js';
import { decisionRefusal } from './decision-rules.js';
import { approvalProgress, approvalsMissing } from './quorum.js';

/**
 * One approver's approval of a request of workspace `teamId`, and its audit entry, in one transaction (both
 * are written, or neither). The approval that completes the quorum turns the request to approved; its caller
 * runs the deletion.
 */
export async function recordApproval(
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

/** Said to an approver who approved this request already (it waits for others). */
export function alreadyApprovedText(r: DeletionRequest): string {
  const missing = approvalsMissing(r);
  return `You already approved request ${r.id} (${approvalProgress(r)}); it waits for ${missing} more approver${missing === 1 ? '' : 's'}.`;
}

/** Why an approval changed nothing: approved before by this user, or no longer open. */
export function approvalRefusedText(result: ApprovalResult, requestId: string): string {
  if (!result.request) return notFoundText(requestId);
  return result.outcome === 'already' ? alreadyApprovedText(result.request) : alreadyDecidedText(result.request);
}

/**
 * The Approve… button's rule: the decision rules, and not twice by the same approver. (Someone who approved
 * may still reject: that stops a deletion, which is always safe.)
 */
export async function approveRefusal(
  ctx: DeletionContext,
  request: DeletionRequest,
  userId: string,
): Promise<string | undefined> {
  if (request.status === 'pending' && request.approverIds.includes(userId)) return alreadyApprovedText(request);
  return decisionRefusal(ctx, request, userId);
}

/** The approval modal after an approval that was counted but is not the last one needed. */
export function approvalRecordedView(r: DeletionRequest): ModalView {
  const missing = approvalsMissing(r);
  return noticeModal(
    `Request ${r.id}`,
    `:ballot_box_with_check: Your approval is recorded: ${approvalProgress(r)}.\nNothing is deleted until ${missing} more approver${missing === 1 ? '' : 's'} approve${missing === 1 ? 's' : ''}; the approval channel shows when.`,
  );
}
