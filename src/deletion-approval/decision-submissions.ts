import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { DeletionRequest } from '../store/deletion-requests.js';
import { updateModal } from '../slack-ui/update-modal.js';
import { textValue } from '../slack-ui/view-state.js';
import { auditedTransition } from './audited-transition.js';
import type { DeletionContext } from './deletion-context.js';
import { alreadyDecidedText } from './deletion-messages.js';
import { decisionRefusal } from './decision-rules.js';
import { REJECT_REASON_BLOCK, deletingView, outcomeView, requestIdOf } from './decision-views.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import { publishAndNotify } from './publish-request.js';
import { runDeletion } from './run-deletion.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * The decision itself: a compare-and-set (pending -> approved|rejected), so of any number of approvers, on
 * any number of replicas, one wins. Everyone else (and anyone who may not decide) gets the modal replaced by
 * why; then this returns undefined. The winner gets the decided request and must still ack.
 */
async function decide(
  { ack, body, view }: Args,
  ctx: DeletionContext,
  decision: 'approved' | 'rejected',
  note?: string,
): Promise<DeletionRequest | undefined> {
  const userId = body.user.id;
  const id = requestIdOf(view.private_metadata) ?? '';
  const tell = (text: string) => ack({ response_action: 'update', view: noticeModal(`Request ${id}`, text) });
  const refusal = await decisionRefusal(ctx, await ctx.store.deletionRequests.get(id), userId, { final: true });
  if (refusal) {
    await tell(`:no_entry: ${refusal}`);
    return undefined;
  }
  const operation = decision === 'approved' ? 'customers.delete.approve' : 'customers.delete.reject';
  const decided = await auditedTransition(ctx, userId, operation, (requests) =>
    requests.decide(id, decision, userId, note),
  );
  if (decided.won) return decided.request;
  await tell(decided.request ? alreadyDecidedText(decided.request) : 'This request no longer exists.');
  return undefined;
}

/** The approval modal submitted: the winner runs the deletion at once and shows the outcome in the modal. */
export function handleApproveSubmission(ctx: DeletionContext) {
  return async (args: Args): Promise<void> => {
    const approved = await decide(args, ctx, 'approved');
    if (!approved) return;
    await args.ack({ response_action: 'update', view: deletingView(approved) });
    const result = await runDeletion(ctx, approved.id, ['approved'], args.body.user.id);
    await updateModal(args.client, args.view.id, outcomeView(result.request ?? approved), ctx.logger);
  };
}

/** The rejection modal submitted, with its optional reason. */
export function handleRejectSubmission(ctx: DeletionContext) {
  return async (args: Args): Promise<void> => {
    const rejected = await decide(args, ctx, 'rejected', textValue(args.view.state.values, REJECT_REASON_BLOCK));
    if (!rejected) return;
    await args.ack({ response_action: 'update', view: outcomeView(rejected) });
    await publishAndNotify(ctx, rejected);
  };
}
