import type { KnownBlock, ModalView } from '@slack/types';
import { section } from '../../platform/blocks/blocks.js';
import { modal } from '../../platform/blocks/modal.js';
import type { DecisionAsked, OfferingView } from '../../platform/blocks/offered-decisions.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { openModal, pushModal } from '../../platform/blocks/open-modal.js';
import { DELETIONS } from './actions.js';
import { type DeletionContext, showOfferingAgain } from './deletion-context.js';
import { decisionButtons } from './messages.js';
import { approveView, rejectView } from './decision-modal.js';
import {
  type DecisionKind,
  type Refusal,
  approveRefusal,
  cancelRefusal,
  decisionRefusal,
  notFound,
  retryRefusal,
  retryTaken,
  signDecisionMetadata,
} from './decision-rules.js';
import { auditedTransition, publishRequest, runDeletion } from './request-transitions.js';
import type { ButtonRequest, Ended } from '../../platform/slack/pipeline/listen.js';
import { RequestEnded } from '../../platform/slack/pipeline/request-ended.js';

type Args = ButtonRequest;

type Rule = (ctx: DeletionContext, request: DeletionRequest, userId: string) => Promise<Refusal | undefined>;

/**
 * Loads the click's request, in the workspace the click was sent from (the button's value comes from the
 * client: an id of another workspace's request is not found); when `rule` refuses the clicker, the request
 * ends with why.
 */
async function allowedRequest(args: Args, ctx: DeletionContext, rule: Rule): Promise<DeletionRequest> {
  const { teamId } = args;
  const id = args.action.value;
  const found = id ? await ctx.store.deletionRequests.forTeam(teamId).get(id) : undefined;
  if (!found) throw notFound(id);
  const request = await rememberApprovalMessage(args, ctx, found);
  const refusal = await rule(ctx, request, args.body.user.id);
  if (refusal) throw refusal;
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
 * Approve… / Reject… on the approval message, on Home, or offered on another capability's modal (History's
 * Details): only an approver other than the requester gets the decision modal (opened at once with the click's
 * trigger; pushed over a modal it was clicked in); anyone else is told why, and nothing changes.
 */
export function handleDecisionButton(ctx: DeletionContext, decision: DecisionKind) {
  const rule = decision === 'approve' ? approveRefusal : decisionRefusal;
  return async (args: Args): Promise<Ended> => {
    const under = offeringViewOf(args);
    if (!under) {
      const request = await allowedRequest(args, ctx, rule);
      // The view is bound to this request (and this approver): a changed id is refused on submission.
      const metadata = signDecisionMetadata(ctx.decisionKeys, decision, request.id, args.body.user.id);
      await openModal(args.client, args.body.trigger_id, decisionView(decision, request, metadata));
      return;
    }
    // Clicked in a modal: the answer goes over it, and Back comes back to it. A refusal (someone decided
    // meanwhile, a stale or forged button) is said there, and the modal beneath then shows the request as it is.
    let request: DeletionRequest;
    try {
      request = await allowedRequest(args, ctx, rule);
    } catch (error) {
      if (!(error instanceof RequestEnded)) throw error;
      await pushModal(args.client, args.body.trigger_id, stayingNotice(decision, error.text));
      const at = { client: args.client, teamId: args.teamId, userId: args.body.user.id };
      await showOfferingAgain(ctx, at, under);
      return error.outcome;
    }
    const metadata = signDecisionMetadata(ctx.decisionKeys, decision, request.id, args.body.user.id, under);
    await pushModal(args.client, args.body.trigger_id, decisionView(decision, request, metadata));
  };
}

function decisionView(decision: DecisionKind, request: DeletionRequest, metadata: string): ModalView {
  return decision === 'approve' ? approveView(request, metadata) : rejectView(request, metadata);
}

/** A refusal over the modal it was clicked in: Back returns to it (not the whole stack closed). */
function stayingNotice(decision: DecisionKind, text: string): ModalView {
  const title = decision === 'approve' ? DELETIONS.forms.approve.title : DELETIONS.forms.reject.title;
  return modal({ title, close: 'Back', blocks: [section(text)] });
}

/** The metadata a decision view carries about the view beneath stays well under Slack's 3,000 characters. */
const MAX_KEPT_METADATA = 1_000;

/** The modal a decision button was clicked in (not a Home tab nor a message), to show again after the decision. */
function offeringViewOf({ body }: Args): OfferingView | undefined {
  const view = body.view;
  if (body.container?.type !== 'view' || view?.type !== 'modal') return undefined;
  const privateMetadata = view.private_metadata ?? '';
  // A view that keeps more than the decision view can carry is not shown again (a decision there is the same).
  const kept = privateMetadata.length <= MAX_KEPT_METADATA;
  return {
    id: view.id,
    ...(view.hash ? { hash: view.hash } : {}),
    callbackId: kept ? view.callback_id : '',
    privateMetadata: kept ? privateMetadata : '',
  };
}

/**
 * A pending request's Approve… / Reject… for another capability's view (History's Details): the same buttons as
 * the approval message, offered to whoever Home offers them to (an approver asked to decide it, not its
 * requester, who has not approved it yet); nothing to anyone else, nor once it is no longer pending. The
 * request is read in the asking workspace only.
 */
export function offeredDecision(ctx: DeletionContext) {
  return async ({ teamId, userId, requestId }: DecisionAsked): Promise<KnownBlock[]> => {
    const request = await ctx.store.deletionRequests.forTeam(teamId).get(requestId);
    if (!request || request.status !== 'pending') return [];
    if (await approveRefusal(ctx, request, userId)) return [];
    return [
      section('*Your decision*\nYou are one of the approvers asked to decide this request.'),
      decisionButtons(request, 'decide'),
    ];
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
    if (!result.ran) throw retryTaken(result.request);
    return result.request.status === 'failed' ? 'upstream_error' : undefined;
  };
}

/** "Cancel request" in the requester's DM: only the requester, only while pending, only in its workspace. */
export function handleCancelButton(ctx: DeletionContext) {
  return async (args: Args): Promise<void> => {
    const { body, action } = args;
    const { teamId } = args;
    const id = action.value ?? '';
    const result = await auditedTransition(ctx, teamId, body.user.id, 'customers.delete.cancel', (requests) =>
      requests.cancel(id, body.user.id),
    );
    if (result.won) {
      await publishRequest(ctx, args.client, result.request);
      return;
    }
    throw cancelRefusal(result.request, id, body.user.id);
  };
}
