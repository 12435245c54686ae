import type { OfferingView } from '../../platform/blocks/offered-decisions.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { textValue } from '../../platform/blocks/view-state.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import { type DeletionContext, showOfferingAgain, workspaceOf } from './deletion-context.js';
import { type DecisionKind, decisionRefusal, verifiedDecision } from './decision-rules.js';
import {
  CHANGED_FORM_TEXT,
  MAX_REJECT_REASON_LENGTH,
  REJECT_REASON_BLOCK,
  approvalRecordedView,
  deletingView,
  notFoundText,
  outcomeView,
} from './deletion-messages.js';
import { approveRequest, rejectRequest } from './request-transitions.js';

/**
 * The approval modal submitted: counted; the last approval needed runs the deletion and shows its outcome.
 * Pushed over another capability's view (History's Details), it closes once counted and that view shows the
 * request as it is now: the approval, then the deletion's outcome.
 */
export function handleApproveSubmission(ctx: DeletionContext) {
  return async (args: FormRequest): Promise<Ended> => {
    // Approving may run the deletion, with the workspace's own Mint account: without one, nothing is counted
    // and the approver is told how to connect it. (Rejecting never needs it.)
    const mint = await ctx.mintIn(workspaceOf(ctx, args.teamId));
    const { request, under } = await requestToDecide(args, ctx, 'approve');
    const approved = await approveRequest(ctx, { slack: args.client, mint }, request, args.body.user.id, (recorded) =>
      under
        ? args.ack().then(() => showOfferingAgain(ctx, submitterIn(ctx, args), under))
        : // Counted but more are needed: "1 of 2 approvals"; the last one needed: "Deleting…" while it runs.
          args.ack({
            response_action: 'update',
            view: recorded.status === 'pending' ? approvalRecordedView(recorded) : deletingView(recorded),
          }),
    );
    if (approved.status === 'pending') return;
    // The view beneath was shown again once already: this update is the newest state whatever its hash now.
    if (under) await showOfferingAgain(ctx, submitterIn(ctx, args), { ...under, hash: undefined });
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
    const { request, under } = await requestToDecide(args, ctx, 'reject');
    await rejectRequest(ctx, args.client, request, args.body.user.id, note, (rejected) =>
      under
        ? args.ack().then(() => showOfferingAgain(ctx, submitterIn(ctx, args), under))
        : args.ack({ response_action: 'update', view: outcomeView(rejected) }),
    );
  };
}

/**
 * The request a submitted decision modal decides. The view must be the one the app opened for this request and
 * this approver (its signed metadata); a changed one decides nothing. The request is looked up in the workspace
 * the submission was sent from only. Anyone who may not decide it (now) is refused, with why; the decision
 * itself is a compare-and-set (request-transitions.ts), so of any number of approvers one wins.
 */
async function requestToDecide(
  { body, view, teamId: requestTeam }: FormRequest,
  ctx: DeletionContext,
  kind: DecisionKind,
): Promise<{ request: DeletionRequest; under?: OfferingView }> {
  const userId = body.user.id;
  const teamId = workspaceOf(ctx, requestTeam);
  const decision = verifiedDecision(ctx.decisionKeys, kind, view.private_metadata, userId);
  if (decision === undefined) {
    ctx.logger.warn(
      { user: userId, callbackId: view.callback_id, metadata: view.private_metadata?.slice(0, 200) },
      'decision view came back with metadata the app did not sign; nothing decided',
    );
    throw refused(CHANGED_FORM_TEXT);
  }
  const id = decision.requestId;
  const request = await ctx.store.deletionRequests.forTeam(teamId).get(id);
  if (!request) throw refused(`:no_entry: ${notFoundText(id)}`);
  const refusal = await decisionRefusal(ctx, request, userId, { final: true });
  if (refusal) throw refused(`:no_entry: ${refusal}`);
  return decision.under ? { request, under: decision.under } : { request };
}

/** Who shows the view beneath a submitted decision again: the submitter, in the submission's workspace. */
function submitterIn(ctx: DeletionContext, args: FormRequest) {
  return { client: args.client, teamId: workspaceOf(ctx, args.teamId), userId: args.body.user.id };
}
