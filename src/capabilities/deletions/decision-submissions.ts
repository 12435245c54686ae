import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { textValue } from '../../platform/blocks/view-state.js';
import { auditedTransition } from './audited-transition.js';
import { type DeletionContext, workspaceOf } from './deletion-context.js';
import { alreadyDecidedText, notFoundText } from './deletion-messages.js';
import { type DecisionKind, verifiedRequestId } from './decision-metadata.js';
import { decisionRefusal } from './decision-rules.js';
import {
  CHANGED_FORM_TEXT,
  MAX_REJECT_REASON_LENGTH,
  REJECT_REASON_BLOCK,
  deletingView,
  outcomeView,
} from './decision-views.js';
import { publishAndNotify, publishRequest } from './publish-request.js';
import { approvalRecordedView, approvalRefusedText, recordApproval } from './record-approval.js';
import { runDeletion } from './run-deletion.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';

const DECISIONS = {
  approve: { status: 'approved', operation: 'customers.delete.approve' },
  reject: { status: 'rejected', operation: 'customers.delete.reject' },
} as const;

/**
 * The decision itself: a compare-and-set (pending -> approved|rejected), so of any number of approvers, on
 * any number of replicas, one wins. The view must be the one the app opened for this request and this
 * approver (its signed metadata); a changed one decides nothing. The request is looked up in the workspace
 * the submission was sent from only. Everyone else (and anyone who may not decide) is refused, with why. The
 * winner gets the decided request and must still ack.
 */
async function decide(
  { body, view, teamId: requestTeam }: FormRequest,
  ctx: DeletionContext,
  kind: DecisionKind,
  note?: string,
): Promise<DeletionRequest> {
  const userId = body.user.id;
  const decision = DECISIONS[kind];
  const teamId = workspaceOf(ctx, requestTeam);
  const id = verifiedRequestId(ctx.decisionKeys, kind, view.private_metadata, userId);
  if (id === undefined) {
    ctx.logger.warn(
      { user: userId, callbackId: view.callback_id, metadata: view.private_metadata?.slice(0, 200) },
      'decision view came back with metadata the app did not sign; nothing decided',
    );
    throw refused(CHANGED_FORM_TEXT);
  }
  const request = await ctx.store.deletionRequests.forTeam(teamId).get(id);
  if (!request) throw refused(`:no_entry: ${notFoundText(id)}`);
  const refusal = await decisionRefusal(ctx, request, userId, { final: true });
  if (refusal) throw refused(`:no_entry: ${refusal}`);
  if (kind === 'approve') {
    // One approval among the quorum: counted by compare-and-set; the request is approved by the last one needed.
    const approval = await recordApproval(ctx, teamId, id, userId);
    if (approval.outcome === 'recorded' || approval.outcome === 'approved') return approval.request;
    throw refused(approvalRefusedText(approval, id));
  }
  const decided = await auditedTransition(ctx, teamId, userId, decision.operation, (requests) =>
    requests.decide(id, decision.status, userId, note),
  );
  if (decided.won) return decided.request;
  throw refused(decided.request ? alreadyDecidedText(decided.request) : notFoundText(id));
}

/** The approval modal submitted: the winner runs the deletion at once and shows the outcome in the modal. */
export function handleApproveSubmission(ctx: DeletionContext) {
  return async (args: FormRequest): Promise<Ended> => {
    // Approving may run the deletion, with the workspace's own Mint account: without one, nothing is counted
    // and the approver is told how to connect it. (Rejecting never needs it.)
    const mint = await ctx.mintIn(workspaceOf(ctx, args.teamId));
    const approved = await decide(args, ctx, 'approve');
    if (approved.status === 'pending') {
      // Counted, but more approvals are needed: every place the request shows gets "1 of 2 approvals".
      await args.ack({ response_action: 'update', view: approvalRecordedView(approved) });
      await publishRequest(ctx, args.client, approved);
      return;
    }
    await args.ack({ response_action: 'update', view: deletingView(approved) });
    const result = await runDeletion(ctx, { slack: args.client, mint }, approved, ['approved'], args.body.user.id);
    await updateModal(args.client, args.view.id, outcomeView(result.request ?? approved), ctx.logger);
    return result.request?.status === 'failed' ? 'upstream_error' : undefined;
  };
}

/**
 * The rejection modal submitted, with its optional reason. The reason comes from the client, so the form's
 * 500-character limit is checked here too (inline, before anything is decided).
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
    const rejected = await decide(args, ctx, 'reject', note);
    await args.ack({ response_action: 'update', view: outcomeView(rejected) });
    await publishAndNotify(ctx, args.client, rejected);
  };
}
