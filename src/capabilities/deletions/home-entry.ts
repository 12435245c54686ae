import type { KnownBlock, ModalView } from '@slack/types';
import { DELETIONS } from './actions.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { HomeEntry } from '../../deps.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import { actionsRow, context, divider, section } from '../../platform/blocks/blocks.js';
import { listModal } from '../../platform/blocks/list-modal.js';
import { italic } from '../../platform/blocks/mrkdwn.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import type { DeletionQuorum } from '../../platform/ops/config/config.js';
import { approvalProgress, customerCount, decisionButtons, retryButtons, cancelButton } from './messages.js';
import type { DeletionContext } from './deletion-context.js';

/** Requests shown on Home per list; the rest are one click away. */
export const NEWEST_SHOWN = 5;

/**
 * The deletion flow on App Home, in the user's workspace: the requests waiting for this user's approval
 * (approvers only, with the same decide-once buttons as the approval message), their own pending requests
 * (with Cancel), and the setup. Nothing of another workspace shows.
 */
export function deletionHomeEntry(ctx: DeletionContext): HomeEntry {
  return {
    order: 20,
    flow: DELETIONS.buttons.requestFromHome,
    blocks: async (userId, teamId) => {
      if (!teamId) return []; // a Home of no known workspace shows no workspace's requests
      const [approvals, failed, own] = await Promise.all([
        approvalsBlocks(ctx, teamId, userId),
        failedBlocks(ctx, teamId, userId),
        ownRequestsBlocks(ctx, teamId, userId),
      ]);
      return [...approvals, ...failed, ...own];
    },
    status: (teamId) => {
      const configured = ctx.settingsIn(teamId);
      return configured.ok
        ? `Customer deletion: requests wait in <#${configured.settings.approvalChannelId}>, approvers ${ctx.approvers.mentions(undefined, teamId)}${quorumStatus(configured.settings.quorum)}`
        : ctx.setUpBy === 'admin'
          ? 'Customer deletion: not set up (a settings admin chooses the approval channel and the approvers in Settings)'
          : `Customer deletion: not set up (${configured.missing.join(' and ')} missing)`;
    },
  };
}

/** ", 2 approvals needed (3 from 100 customers)" for Home's status line; empty for the default of one. */
function quorumStatus(quorum: DeletionQuorum): string {
  if (quorum.approvals <= 1 && !quorum.large) return '';
  const large = quorum.large ? ` (${quorum.large.approvals} from ${quorum.large.fromCustomers} customers)` : '';
  return `, ${quorum.approvals} approval${quorum.approvals === 1 ? '' : 's'} needed${large}`;
}

async function approvalsBlocks(ctx: DeletionContext, teamId: string, userId: string): Promise<KnownBlock[]> {
  const waiting = await waitingFor(ctx, teamId, userId);
  if (waiting.length === 0 && !(await ctx.approvers.check(userId, { teamId })).approver) return [];
  const count = waiting.length;
  const newest = waiting.slice(0, NEWEST_SHOWN);
  const blocks: KnownBlock[] = [section(`*Waiting for your approval* (${count})`)];
  if (count === 0) blocks.push(context('Nothing waits for your approval.'));
  for (const r of newest) blocks.push(section(requestLine(r, true)), decisionButtons(r, `approve_${r.id}`));
  if (count > newest.length)
    blocks.push(actionsRow('all_approvals', buttonOf(DELETIONS.buttons.allApprovals, { label: `See all ${count}` })));
  blocks.push(divider());
  return blocks;
}

/**
 * The requests whose deletion failed (or was interrupted) that this user may send again: an approver's to
 * retry, with the same button as the approval message. Nothing when none waits for them.
 */
async function failedBlocks(ctx: DeletionContext, teamId: string, userId: string): Promise<KnownBlock[]> {
  const failed = await decidableBy(
    ctx,
    teamId,
    userId,
    await ctx.store.deletionRequests
      .forTeam(teamId)
      .list({ statuses: ['failed', 'attention'], notRequesterId: userId, limit: WAITING_READ }),
  );
  if (failed.length === 0) return [];
  const blocks: KnownBlock[] = [section(`*Deletions that failed* (${failed.length})`)];
  for (const r of failed.slice(0, NEWEST_SHOWN))
    blocks.push(section(`${requestLine(r, true)}\n${failedLine(r)}`), retryButtons(r, `retry_${r.id}`));
  if (failed.length > NEWEST_SHOWN)
    blocks.push(
      context(`${failed.length - NEWEST_SHOWN} more: try them again from their messages in the approval channel.`),
    );
  blocks.push(divider());
  return blocks;
}

/** Why a failed request stopped, in a line. */
function failedLine(r: DeletionRequest): string {
  const when = r.finishedAt ? ` ${slackDate(r.finishedAt)}` : '';
  return r.status === 'attention'
    ? `:rotating_light: The app stopped during the deletion${when}: it is not known whether the customers were deleted.`
    : `:x: The deletion failed${when}${r.outcomeDetail ? `: ${italic(r.outcomeDetail, 300)}` : '.'}`;
}

async function ownRequestsBlocks(ctx: DeletionContext, teamId: string, userId: string): Promise<KnownBlock[]> {
  const filter = { statuses: ['pending' as const], requesterId: userId };
  const requests = ctx.store.deletionRequests.forTeam(teamId);
  const [count, newest] = await Promise.all([
    requests.count(filter),
    requests.list({ ...filter, limit: NEWEST_SHOWN }),
  ]);
  if (count === 0) return [];
  const blocks: KnownBlock[] = [section(`*Your requests waiting for approval* (${count})`)];
  for (const r of newest) blocks.push(section(requestLine(r, false)), cancelButton(r, `cancel_${r.id}`));
  if (count > newest.length)
    blocks.push(actionsRow('all_own', buttonOf(DELETIONS.buttons.allOwnRequests, { label: `See all ${count}` })));
  blocks.push(divider());
  return blocks;
}

/** "See all" of the approvals waiting for this user in their workspace. */
export async function allApprovalsView(ctx: DeletionContext, teamId: string, userId: string): Promise<ModalView> {
  const pending = await waitingFor(ctx, teamId, userId);
  if (pending.length === 0 && !(await ctx.approvers.check(userId, { teamId })).approver)
    return listModal('Waiting for approval', [], 'Only approvers see these.');
  const configured = ctx.settingsIn(teamId);
  const where = configured.ok ? ` on their messages in <#${configured.settings.approvalChannelId}>,` : '';
  return listModal(
    'Waiting for approval',
    pending.map((r) => requestLine(r, true)),
    `Decide them${where} or on Home as they come to the top.`,
  );
}

/** Pending requests read for Home at most: more are decided in the approval channel. */
const WAITING_READ = 1000;

/**
 * The pending requests of the workspace this user may decide, newest first: each by the approvers it was
 * opened with (a request keeps its policy; one from before approvers were recorded follows the approvers in
 * force now).
 */
async function waitingFor(ctx: DeletionContext, teamId: string, userId: string): Promise<DeletionRequest[]> {
  const pending = await ctx.store.deletionRequests.forTeam(teamId).list({
    statuses: ['pending'],
    notRequesterId: userId,
    notApprovedBy: userId,
    limit: WAITING_READ,
  });
  return decidableBy(ctx, teamId, userId, pending);
}

/** Those of `requests` this user may decide: each by the approvers it was opened with. */
async function decidableBy(
  ctx: DeletionContext,
  teamId: string,
  userId: string,
  pending: DeletionRequest[],
): Promise<DeletionRequest[]> {
  const verdicts = new Map<string, Promise<boolean>>(); // one check per distinct set of approvers
  const mayDecide = (r: DeletionRequest) => {
    const key = JSON.stringify(r.approvers ?? null);
    let verdict = verdicts.get(key);
    if (!verdict) {
      verdict = ctx.approvers.check(userId, { among: r.approvers, teamId }).then((check) => check.approver);
      verdicts.set(key, verdict);
    }
    return verdict;
  };
  const allowed = await Promise.all(pending.map((request) => mayDecide(request)));
  return pending.filter((_, i) => allowed[i]);
}

/** "See all" of this user's own pending requests in their workspace. */
export async function ownRequestsView(ctx: DeletionContext, teamId: string, userId: string): Promise<ModalView> {
  const pending = await ctx.store.deletionRequests
    .forTeam(teamId)
    .list({ statuses: ['pending'], requesterId: userId, limit: 1000 });
  return listModal(
    'Your requests',
    pending.map((r) => requestLine(r, false)),
    'Cancel them from the message the app sent you, or on Home.',
  );
}

/** One deletion request in a line (Home and its lists). */
export function requestLine(r: DeletionRequest, withRequester: boolean): string {
  const who = withRequester ? `<@${r.requesterId}> asks to delete` : 'to delete';
  const progress = approvalProgress(r);
  return `*${r.id}* · ${who} *${customerCount(r.customerIds.length)}* · ${slackDate(r.createdAt)}${progress ? ` · ${progress}` : ''}\n${italic(r.reason, 300)}`;
}
