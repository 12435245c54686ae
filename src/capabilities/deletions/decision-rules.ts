import type { CapabilityStore } from '../../deps.js';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { OfferingView } from '../../platform/blocks/offered-decisions.js';
import type { SecretKey } from '../../platform/secrets/secret-box.js';
import type { ApprovalResult, DeletionRequest } from '../../platform/store/deletion-requests.js';
import { isRecord } from '../../platform/unknown-fields.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { Approvers, AskSlack } from '../../tenancy/workspaces/approvers.js';
import { type RequestEnded, refused } from '../../platform/slack/pipeline/request-ended.js';
import { cutText, escapeMrkdwn } from '../../platform/blocks/mrkdwn.js';
import {
  approvalProgress,
  approvalsMissing,
  approvedByText,
  mentionOrSomeone as by,
  dateOrNothing as when,
} from './messages.js';

/*
 * Who may decide which request, in two parts: which request a decision modal decides (its signed metadata,
 * first), and whether the person who clicks a decision's button or submits its modal may decide it (the rules).
 * Each rule refuses with its own words, here beside it: a Refusal, which the listener throws to end the request
 * telling the person why.
 *
 * A decision modal (Approve… / Reject…) carries the id of the request it was opened for in its
 * private_metadata, which comes back from the client on submission. So that a changed id (an approver looking
 * at request D submitting a decision on request E) is refused, the metadata is signed: an HMAC-SHA-256 of the
 * decision, the request id and the approver.
 *
 * The signing keys come from SECRETS_KEYS (one derived with HKDF from each, so no key is used for two
 * purposes), the same on every replica: the first signs, and a signature by any of them is accepted, so a view
 * opened before a new key was put first still decides after the restart. A view in Slack cannot be signed
 * again: a key dropped from the list makes the views it signed refused ("open it again"). Last comes the key
 * derived from Config.slack.keySource (the bot token, or the signing secret in distribution mode): the only
 * one when SECRETS_KEYS is unset (single-workspace mode), and the one views opened before it was set were
 * signed with.
 */

export type DecisionKind = 'approve' | 'reject';

/** The keys of decision views: the first signs, each verifies. */
export type DecisionKeys = readonly [Buffer, ...Buffer[]];

const KEY_SALT = 'mintlink';
const SECRETS_KEY_INFO = 'mintlink deletion decision view metadata v2';
const DERIVED_KEY_INFO = 'mintlink deletion decision view metadata v1';

/** The keys for decision views: one from each key of SECRETS_KEYS (newest first), then one from `keySource`. */
export function decisionMetadataKeys(secretKeys: readonly SecretKey[], keySource: string): DecisionKeys {
  const derived = Buffer.from(hkdfSync('sha256', keySource, KEY_SALT, DERIVED_KEY_INFO, 32));
  const fromSecrets = secretKeys.map((key) =>
    Buffer.from(hkdfSync('sha256', key.bytes, KEY_SALT, SECRETS_KEY_INFO, 32)),
  );
  const [first, ...rest] = [...fromSecrets, derived];
  return [first ?? derived, ...rest];
}

function signature(
  key: Buffer,
  kind: DecisionKind,
  requestId: string,
  userId: string,
  under: OfferingView | undefined,
): Buffer {
  // Without a view beneath, exactly what views opened before there was one were signed with.
  const beneath = under && [under.id, under.hash ?? null, under.callbackId, under.privateMetadata];
  const signed = beneath ? [kind, requestId, userId, beneath] : [kind, requestId, userId];
  return createHmac('sha256', key).update(JSON.stringify(signed)).digest();
}

/**
 * The private_metadata of a decision view opened by `userId` on request `requestId`, signed with the first key.
 * `under`: the view it was pushed over (History's Details), shown again once the decision lands; signed too, so
 * a submission cannot name another view to update.
 */
export function signDecisionMetadata(
  keys: DecisionKeys,
  kind: DecisionKind,
  requestId: string,
  userId: string,
  under?: OfferingView,
): string {
  const sig = signature(keys[0], kind, requestId, userId, under).toString('base64url');
  return JSON.stringify(under ? { requestId, sig, under } : { requestId, sig });
}

/** What a decision view signed by the app decides, and the view it was pushed over, if any. */
export interface VerifiedDecision {
  requestId: string;
  under?: OfferingView;
}

/**
 * The request id of a submitted decision view, when its metadata is exactly what the app signed (with any of
 * its keys) for this kind of decision and this user; otherwise undefined (changed, forged, or from another view).
 */
export function verifiedRequestId(
  keys: DecisionKeys,
  kind: DecisionKind,
  privateMetadata: string | undefined,
  userId: string,
): string | undefined {
  return verifiedDecision(keys, kind, privateMetadata, userId)?.requestId;
}

/** verifiedRequestId, with the view beneath that the app signed with it. */
export function verifiedDecision(
  keys: DecisionKeys,
  kind: DecisionKind,
  privateMetadata: string | undefined,
  userId: string,
): VerifiedDecision | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(privateMetadata ?? '');
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const { requestId, sig, under: given } = parsed;
  if (typeof requestId !== 'string' || typeof sig !== 'string') return undefined;
  const under = offeringView(given);
  if (given !== undefined && !under) return undefined;
  const sent = Buffer.from(sig, 'base64url');
  const signedByOne = keys.some((key) => {
    const expected = signature(key, kind, requestId, userId, under);
    return sent.length === expected.length && timingSafeEqual(sent, expected);
  });
  if (!signedByOne) return undefined;
  return under ? { requestId, under } : { requestId };
}

/** The refusal of a decision view that came back with metadata the app did not sign: nothing is decided. */
export function changedForm(): Refusal {
  return refused(':no_entry: This form was changed, so nothing was decided. Open the request again.');
}

/** The view beneath as the app wrote it into the metadata. */
function offeringView(value: unknown): OfferingView | undefined {
  if (!isRecord(value)) return undefined;
  const { id, hash, callbackId, privateMetadata } = value;
  if (typeof id !== 'string' || typeof callbackId !== 'string' || typeof privateMetadata !== 'string') return undefined;
  if (hash !== undefined && typeof hash !== 'string') return undefined;
  return hash === undefined ? { id, callbackId, privateMetadata } : { id, hash, callbackId, privateMetadata };
}

/**
 * Why a rule refuses: the request ends (the listener throws it) and the person reads the rule's words, in a
 * note to whoever clicked or in the modal they submitted.
 */
export type Refusal = RequestEnded;

/** A refusal of a click or a form that names a request: nothing was done. */
const noEntry = (text: string): Refusal => refused(`:no_entry: ${text}`);

/**
 * A click or a form names a request the workspace does not have: never made, or another workspace's (a forged
 * id). Nothing of any other workspace is read to say it.
 */
export function notFound(id: string | undefined): Refusal {
  return noEntry(notFoundText(id));
}

function notFoundText(id: string | undefined): string {
  const shown = id ? ` ${escapeMrkdwn(cutText(id, 40))}` : ''; // the id comes from the client
  return `Deletion request${shown} was not found in this workspace. Nothing was changed.`;
}

/** Said to someone who acts on a request that is no longer waiting for a decision. */
function alreadyDecidedText(r: DeletionRequest): string {
  switch (r.status) {
    case 'pending':
      return `Request ${r.id} is still waiting for a decision.`;
    case 'rejected':
      return `Request ${r.id} was already rejected by ${by(r.decidedBy)} ${when(r.decidedAt)}.`;
    case 'cancelled':
      return `Request ${r.id} was cancelled by the requester ${when(r.decidedAt)}; it cannot be decided.`;
    case 'expired':
      return `Request ${r.id} expired ${when(r.expiresAt)}; it cannot be decided. The requester can ask again.`;
    default:
      return `Request ${r.id} was already approved by ${approvedByText(r)} ${when(r.decidedAt)}.`;
  }
}

/** Said to an approver who approved this request already (it waits for others). */
function alreadyApprovedText(r: DeletionRequest): string {
  const missing = approvalsMissing(r);
  return `You already approved request ${r.id} (${approvalProgress(r)}); it waits for ${missing} more approver${missing === 1 ? '' : 's'}.`;
}

/** What the rules read: the request's expiry (by the database's clock) and who its approvers are. */
interface DecisionRulesContext {
  store: CapabilityStore;
  approvers: Approvers;
}

/**
 * Why `userId` may not approve or reject this request now, or undefined when they may: it must be pending
 * and unexpired, they must be an approver (of its workspace), and never the requester. `final`: this is the
 * decision itself, so approver rights are asked from Slack afresh rather than from the cache.
 */
export async function decisionRefusal(
  ctx: DecisionRulesContext,
  request: DeletionRequest,
  userId: string,
  options: { final?: boolean } = {},
): Promise<Refusal | undefined> {
  if (request.status !== 'pending') return noEntry(alreadyDecidedText(request));
  // The database's clock decides, as it does for the decision itself: every replica gives the same answer.
  if (await ctx.store.deletionRequests.forTeam(request.teamId).hasExpired(request.id))
    return noEntry(alreadyDecidedText({ ...request, status: 'expired' }));
  return approverRefusal(ctx, request, userId, options.final ? 'always' : 'before refusing');
}

/**
 * The Approve… button's rule: the decision rules, and not twice by the same approver. (Someone who approved
 * may still reject: that stops a deletion, which is always safe.)
 */
export async function approveRefusal(
  ctx: DecisionRulesContext,
  request: DeletionRequest,
  userId: string,
): Promise<Refusal | undefined> {
  if (request.status === 'pending' && request.approverIds.includes(userId))
    return noEntry(alreadyApprovedText(request));
  return decisionRefusal(ctx, request, userId);
}

/** Why `userId` may not run this request again (it must have failed or been interrupted). */
export async function retryRefusal(
  ctx: DecisionRulesContext,
  request: DeletionRequest,
  userId: string,
): Promise<Refusal | undefined> {
  if (request.status === 'running' || request.status === 'approved')
    return noEntry(`Request ${request.id} is being deleted right now.`);
  if (request.status !== 'failed' && request.status !== 'attention')
    return noEntry(`Request ${request.id} has nothing to try again (it is ${request.status}).`);
  return approverRefusal(ctx, request, userId, 'always'); // it runs the deletion at once
}

async function approverRefusal(
  ctx: DecisionRulesContext,
  request: DeletionRequest,
  userId: string,
  askSlack: AskSlack,
): Promise<Refusal | undefined> {
  // The approvers the request was opened with: a later change of the settings neither adds nor removes any.
  const teamId = request.teamId;
  const check = await ctx.approvers.check(userId, { askSlack, among: request.approvers, teamId });
  if (request.requesterId === userId)
    return noEntry(
      check.approver
        ? 'You asked for this deletion, so another approver must decide it.'
        : `You asked for this deletion: its approvers decide it (${ctx.approvers.mentions(request.approvers, teamId)}). Nothing was changed.`,
    );
  if (check.approver) return undefined;
  if (check.problem)
    return noEntry(
      `Your approver rights could not be checked (${check.problem}). Nothing was changed; try again in a moment.`,
    );
  return noEntry(
    `Only the approvers of this request can decide it (${ctx.approvers.mentions(request.approvers, teamId)}). Nothing was changed.`,
  );
}

/** A submitted decision modal: the view as it came back, who submitted it, and the workspace it came from. */
export interface SubmittedDecision {
  view: { callback_id: string; private_metadata?: string | undefined };
  userId: string;
  teamId: string;
}

/**
 * The request a submitted decision modal decides, and the view it was pushed over, if any. The view must be the
 * one the app opened for this request and this approver (its signed metadata); a changed one decides nothing.
 * The request is looked up in the workspace the submission was sent from only. Anyone who may not decide it
 * (now) is refused, with why; the decision itself is a compare-and-set (request-transitions.ts), so of any
 * number of approvers one wins.
 */
export async function requestToDecide(
  ctx: DecisionRulesContext & { decisionKeys: DecisionKeys; logger: Logger },
  { view, userId, teamId }: SubmittedDecision,
  kind: DecisionKind,
): Promise<{ request: DeletionRequest; under?: OfferingView }> {
  const decision = verifiedDecision(ctx.decisionKeys, kind, view.private_metadata, userId);
  if (decision === undefined) {
    ctx.logger.warn(
      { user: userId, callbackId: view.callback_id, metadata: view.private_metadata?.slice(0, 200) },
      'decision view came back with metadata the app did not sign; nothing decided',
    );
    throw changedForm();
  }
  const id = decision.requestId;
  const request = await ctx.store.deletionRequests.forTeam(teamId).get(id);
  if (!request) throw notFound(id);
  const refusal = await decisionRefusal(ctx, request, userId, { final: true });
  if (refusal) throw refusal;
  return decision.under ? { request, under: decision.under } : { request };
}

/*
 * The rules above are checked before anything changes; each change is then a compare-and-set, which someone
 * else may have won meanwhile. These are the words for a change that lost.
 */

/** An approval that changed nothing: approved before by this approver, or the request no longer open. */
export function approvalNotCounted(result: ApprovalResult, requestId: string): Refusal {
  if (!result.request) return refused(notFoundText(requestId));
  return refused(
    result.outcome === 'already' ? alreadyApprovedText(result.request) : alreadyDecidedText(result.request),
  );
}

/** A rejection that changed nothing: the request was decided (or is gone) meanwhile. */
export function rejectionNotCounted(request: DeletionRequest | undefined, requestId: string): Refusal {
  return refused(request ? alreadyDecidedText(request) : notFoundText(requestId));
}

/** A second "Try the deletion again" while another one's run is claimed. */
export function retryTaken(request: DeletionRequest | undefined): Refusal {
  return refused(
    `Someone else is already trying again: ${request ? alreadyDecidedText(request) : 'the request is gone.'}`,
  );
}

/**
 * A cancel that changed nothing: only the requester cancels, and only a request still pending. `current` is the
 * request as the compare-and-set found it.
 */
export function cancelRefusal(current: DeletionRequest | undefined, requestId: string, userId: string): Refusal {
  if (!current) return notFound(requestId);
  const why = current.requesterId !== userId ? 'only the requester can cancel it' : alreadyDecidedText(current);
  return noEntry(`Request ${current.id} cannot be cancelled: ${why}`);
}
