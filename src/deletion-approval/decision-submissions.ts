import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { DeletionRequest } from '../store/deletion-requests.js';
import { updateModal } from '../slack-ui/update-modal.js';
import { textValue } from '../slack-ui/view-state.js';
import { auditedTransition } from './audited-transition.js';
import type { DeletionContext } from './deletion-context.js';
import { alreadyDecidedText } from './deletion-messages.js';
import { type DecisionKind, verifiedRequestId } from './decision-metadata.js';
import { decisionRefusal } from './decision-rules.js';
import {
  MAX_REJECT_REASON_LENGTH,
  REJECT_REASON_BLOCK,
  changedFormView,
  deletingView,
  outcomeView,
} from './decision-views.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import { publishAndNotify, publishRequest } from './publish-request.js';
import { approvalRecordedView, approvalRefusedText, recordApproval } from './record-approval.js';
import { runDeletion } from './run-deletion.js';
import { noteOutcome, requestOf } from '../observability/request-context.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

const DECISIONS = {
  approve: { status: 'approved', operation: 'customers.delete.approve', title: 'Approve deletion' },
  reject: { status: 'rejected', operation: 'customers.delete.reject', title: 'Reject deletion' },
} as const;

/**
 * The decision itself: a compare-and-set (pending -> approved|rejected), so of any number of approvers, on
 * any number of replicas, one wins. The view must be the one the app opened for this request and this
 * approver (its signed metadata); a changed one decides nothing. Everyone else (and anyone who may not
 * decide) gets the modal replaced by why; then this returns undefined. The winner gets the decided request
 * and must still ack.
 */
async function decide(
  { ack, body, view, context }: Args,
  ctx: DeletionContext,
  kind: DecisionKind,
  note?: string,
): Promise<DeletionRequest | undefined> {
  const userId = body.user.id;
  const decision = DECISIONS[kind];
  const id = verifiedRequestId(ctx.decisionKey, kind, view.private_metadata, userId);
  if (id === undefined) {
    ctx.logger.warn(
      { user: userId, callbackId: view.callback_id, metadata: view.private_metadata?.slice(0, 200) },
      'decision view came back with metadata the app did not sign; nothing decided',
    );
    noteOutcome(requestOf(context), 'refused');
    await ack({ response_action: 'update', view: changedFormView(decision.title) });
    return undefined;
  }
  const tell = (text: string) => {
    noteOutcome(requestOf(context), 'refused');
    return ack({ response_action: 'update', view: noticeModal(`Request ${id}`, text) });
  };
  const refusal = await decisionRefusal(ctx, await ctx.store.deletionRequests.get(id), userId, { final: true });
  if (refusal) {
    await tell(`:no_entry: ${refusal}`);
    return undefined;
  }
  if (kind === 'approve') {
    // One approval among the quorum: counted by compare-and-set; the request is approved by the last one needed.
    const approval = await recordApproval(ctx, id, userId);
    if (approval.outcome === 'recorded' || approval.outcome === 'approved') return approval.request;
    await tell(approvalRefusedText(approval));
    return undefined;
  }
  const decided = await auditedTransition(ctx, userId, decision.operation, (requests) =>
    requests.decide(id, decision.status, userId, note),
  );
  if (decided.won) return decided.request;
  await tell(decided.request ? alreadyDecidedText(decided.request) : 'This request no longer exists.');
  return undefined;
}

/** The approval modal submitted: the winner runs the deletion at once and shows the outcome in the modal. */
export function handleApproveSubmission(ctx: DeletionContext) {
  return async (args: Args): Promise<void> => {
    const approved = await decide(args, ctx, 'approve');
    if (!approved) return;
    if (approved.status === 'pending') {
      // Counted, but more approvals are needed: every place the request shows gets "1 of 2 approvals".
      await args.ack({ response_action: 'update', view: approvalRecordedView(approved) });
      await publishRequest(ctx, approved);
      return;
    }
    await args.ack({ response_action: 'update', view: deletingView(approved) });
    const result = await runDeletion(ctx, approved.id, ['approved'], args.body.user.id, requestOf(args.context));
    await updateModal(args.client, args.view.id, outcomeView(result.request ?? approved), ctx.logger);
  };
}

/**
 * The rejection modal submitted, with its optional reason. The reason comes from the client, so the form's
 * 500-character limit is checked here too (inline, before anything is decided).
 */
export function handleRejectSubmission(ctx: DeletionContext) {
  return async (args: Args): Promise<void> => {
    const note = textValue(args.view.state.values, REJECT_REASON_BLOCK);
    if (note !== undefined && note.length > MAX_REJECT_REASON_LENGTH) {
      noteOutcome(requestOf(args.context), 'invalid_input');
      await args.ack({
        response_action: 'errors',
        errors: {
          [REJECT_REASON_BLOCK]: `The reason is ${note.length} characters long; keep it to ${MAX_REJECT_REASON_LENGTH}.`,
        },
      });
      return;
    }
    const rejected = await decide(args, ctx, 'reject', note);
    if (!rejected) return;
    await args.ack({ response_action: 'update', view: outcomeView(rejected) });
    await publishAndNotify(ctx, rejected);
  };
}
