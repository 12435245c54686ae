import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import { type DeletionContext, workspaceOf } from './deletion-context.js';
import { alreadyDecidedText, approveView, notFoundText, rejectView } from './deletion-messages.js';
import { approveRefusal, decisionRefusal, retryRefusal, signDecisionMetadata } from './decision-rules.js';
import { auditedTransition, publishRequest, runDeletion } from './request-transitions.js';
import type { ButtonRequest, Ended } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';

type Args = ButtonRequest;

type Rule = (ctx: DeletionContext, request: DeletionRequest, userId: string) => Promise<string | undefined>;

/**
 * Loads the click's request, in the workspace the click was sent from (the button's value comes from the
 * client: an id of another workspace's request is not found); when `rule` refuses the clicker, the request
 * ends with why.
 */
async function allowedRequest(args: Args, ctx: DeletionContext, rule: Rule): Promise<DeletionRequest> {
  const teamId = workspaceOf(ctx, args.teamId);
  const id = args.action.value;
  const found = id ? await ctx.store.deletionRequests.forTeam(teamId).get(id) : undefined;
  if (!found) throw refused(`:no_entry: ${notFoundText(id)}`);
  const request = await rememberApprovalMessage(args, ctx, found);
  const refusal = await rule(ctx, request, args.body.user.id);
  if (refusal) throw refused(`:no_entry: ${refusal}`);
  return request;
}

/**
 * The message clicked is the approval message. If its id was never stored (the database failed right after
 * posting it), store it now, so its status can be shown on it from here on.
 */
async function rememberApprovalMessage(
  { body }: Args,
  ctx: DeletionContext,
  request: DeletionRequest,
): Promise<DeletionRequest> {
  const channel = body.channel?.id;
  const ts = body.message?.ts;
  if (request.approvalMessageTs || !channel || !ts || body.container?.type !== 'message') return request;
  await ctx.store.deletionRequests.forTeam(request.teamId).setApprovalMessage(request.id, channel, ts);
  return { ...request, approvalChannelId: channel, approvalMessageTs: ts };
}

/**
 * Approve… / Reject… on the approval message: only an approver other than the requester gets the modal
 * (opened at once with the click's trigger); anyone else is told why, and nothing changes.
 */
export function handleDecisionButton(ctx: DeletionContext, decision: 'approve' | 'reject') {
  return async (args: Args): Promise<void> => {
    const request = await allowedRequest(args, ctx, decision === 'approve' ? approveRefusal : decisionRefusal);
    // The view is bound to this request (and this approver): a changed id is refused on submission.
    const metadata = signDecisionMetadata(ctx.decisionKeys, decision, request.id, args.body.user.id);
    const view = decision === 'approve' ? approveView(request, metadata) : rejectView(request, metadata);
    await openModal(args.client, args.body.trigger_id, view);
  };
}

/** "Try the deletion again" on a failed or interrupted request: the same request, no new approval. */
export function handleRetryButton(ctx: DeletionContext) {
  return async (args: Args): Promise<Ended> => {
    const request = await allowedRequest(args, ctx, retryRefusal);
    // The workspace's own Mint account sends it; without one, the approver is told how to connect it.
    const mint = await ctx.mintIn(request.teamId);
    const result = await runDeletion(
      ctx,
      { slack: args.client, mint },
      request,
      ['failed', 'attention'],
      args.body.user.id,
    );
    if (!result.ran)
      throw refused(
        `Someone else is already trying again: ${result.request ? alreadyDecidedText(result.request) : 'the request is gone.'}`,
      );
    return result.request.status === 'failed' ? 'upstream_error' : undefined;
  };
}

/** "Cancel request" in the requester's DM: only the requester, only while pending, only in its workspace. */
export function handleCancelButton(ctx: DeletionContext) {
  return async (args: Args): Promise<void> => {
    const { body, action } = args;
    const teamId = workspaceOf(ctx, args.teamId);
    const id = action.value ?? '';
    const result = await auditedTransition(ctx, teamId, body.user.id, 'customers.delete.cancel', (requests) =>
      requests.cancel(id, body.user.id),
    );
    if (result.won) {
      await publishRequest(ctx, args.client, result.request);
      return;
    }
    const current = result.request;
    if (!current) throw refused(`:no_entry: ${notFoundText(id)}`);
    const why = current.requesterId !== body.user.id ? 'only the requester can cancel it' : alreadyDecidedText(current);
    throw refused(`:no_entry: Request ${current.id} cannot be cancelled: ${why}`);
  };
}
