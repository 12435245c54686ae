import type { KnownBlock, ModalView } from '@slack/types';
import type { CapabilityDeps } from '../../deps.js';
import { context, section } from '../../platform/blocks/blocks.js';
import { enumLabel } from '../../platform/blocks/choices.js';
import { codeBlock, escapeAndCut, escapeStrayMrkdwn, inlineCode } from '../../platform/blocks/mrkdwn.js';
import { modal } from '../../platform/blocks/modal.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import type { ShowAgain } from '../../platform/blocks/offered-decisions.js';
import { rowCountParts } from '../../domain/bulk-words.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { SYSTEM_ACTOR } from '../../platform/store/bulk-jobs/jobs.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import type { HistoryItem } from '../../platform/store/history/search.js';
import { viewerOf, visibleResult } from './history-viewer.js';
import { bulkStateText, customersText, howText, kindName } from './history-modal.js';

/** Customer ids a details view lists before saying how many more (a deletion may name a thousand). */
const CUSTOMERS_SHOWN = 60;

/**
 * The details view's callback_id: it has no submit, but a decision made from it (a pending deletion's Approve /
 * Reject) comes back to it by this id to show it again (see OfferedDecisions). Its private_metadata is the
 * result's id.
 */
export const DETAILS_CALLBACK_ID = 'history_details';

type DetailsDeps = Pick<CapabilityDeps, 'store' | 'decisions'>;

/**
 * A result's details, pushed over the list, as `viewerId` sees them. What the row keeps (a link's fields, a
 * wallet's customer), and for a deletion request and a bulk job what their own tables say now: each approval
 * and rejection with who and when, the outcome, and Approve / Reject for an approver who may decide it now; a
 * job's state, counts and results file.
 */
export async function detailsView(deps: DetailsDeps, item: HistoryItem, viewerId: string): Promise<ModalView> {
  const made = `Made by <@${item.actorId}> ${howText(item, true)}, ${slackDate(item.madeAt)}.`;
  const blocks: KnownBlock[] = [];
  switch (item.kind) {
    case 'link':
      blocks.push(...linkBlocks(item));
      break;
    case 'wallet':
      blocks.push(
        section(
          item.customerIds[0]
            ? `*Customer*\n${inlineCode(item.customerIds[0], 100)}`
            : '*Customer*\nA new user (the service chose the id)',
        ),
        section(`*Outcome*\n${failedText(item, 'the wallet') ?? outcomeText(item.outcome)}`),
      );
      break;
    case 'deletion':
      blocks.push(...(await deletionBlocks(deps, item, viewerId)));
      if (item.requestId)
        blocks.push(
          ...(await deps.decisions.blocksFor({ teamId: item.teamId, userId: viewerId, requestId: item.requestId })),
        );
      break;
    case 'bulk':
      blocks.push(...(await bulkBlocks(deps, item, viewerId)));
      break;
  }
  // A deletion request's own lines say who asked, how and when.
  if (item.kind !== 'deletion') blocks.push(context(made));
  return modal({
    title: kindName(item.kind),
    close: 'Back',
    blocks,
    callbackId: DETAILS_CALLBACK_ID,
    privateMetadata: item.id,
  });
}

/**
 * A details view shown again in place after a decision made from it (or refused there): as its viewer may see
 * the result now, their rights asked afresh; a result they may no longer see is not shown again.
 */
export function showDetailsAgain(
  deps: DetailsDeps & Pick<CapabilityDeps, 'approvers' | 'settingsAdmins' | 'settings' | 'logger'>,
) {
  return async ({ client, teamId, userId, view }: ShowAgain): Promise<void> => {
    const item = await visibleResult(deps, teamId, view.privateMetadata, await viewerOf(deps, userId, teamId));
    if (!item) return;
    await updateModal(client, view.id, await detailsView(deps, item, userId), deps.logger, view.hash);
  };
}

function linkBlocks(item: HistoryItem): KnownBlock[] {
  const facts = item.facts;
  const fields = [
    `*NFT ID*\n${item.nftId ? inlineCode(item.nftId, 200) : '—'}`,
    `*Recipient email*\n${item.email ? escapeAndCut(item.email, 200) : '—'}`,
    `*Max checkout quantity*\n${typeof facts.quantity === 'number' ? String(facts.quantity) : 'not limited'}`,
    `*Active*\n${facts.active === false ? 'No' : 'Yes'}`,
    `*Claim starts*\n${typeof facts.startDate === 'string' ? dateText(facts.startDate) : 'at once'}`,
    `*Claim ends*\n${typeof facts.endDate === 'string' ? dateText(facts.endDate) : 'never'}`,
  ];
  if (typeof facts.walletOptions === 'string')
    fields.push(`*Wallet*\n${escapeAndCut(enumLabel(facts.walletOptions), 60)}`);
  if (typeof facts.type === 'string') fields.push(`*Link type*\n${escapeAndCut(enumLabel(facts.type), 60)}`);
  return [
    section(
      item.url
        ? `*Link* (copy it from here)\n${codeBlock(item.url)}`
        : (failedText(item, 'the mint link') ?? `The link was not made (${escapeAndCut(item.outcome, 60)}).`),
    ),
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text })) },
    section(`*Customer IDs*\n${item.customerIds.length > 0 ? customersText(item.customerIds, CUSTOMERS_SHOWN) : '—'}`),
  ];
}

/**
 * A deletion request as its own tables say it now: who asked and when (once: the footer is left out), what
 * the approvals are and, while it waits, who was asked and how many more are needed, and where it stands in
 * the words of the deletion flow's own messages (said to the requester as their DMs say it).
 */
async function deletionBlocks(
  deps: Pick<CapabilityDeps, 'store' | 'decisions'>,
  item: HistoryItem,
  viewerId: string,
): Promise<KnownBlock[]> {
  const requestId = item.requestId ?? '';
  const request = await deps.store.deletionRequests.forTeam(item.teamId).get(requestId);
  if (!request)
    return [
      section(
        `*${inlineCode(requestId, 40)}*\nThe request itself is no longer kept. Customers: ${customersText(item.customerIds, CUSTOMERS_SHOWN)}`,
      ),
      context(`Asked by <@${item.actorId}> ${howText(item, true)}, ${slackDate(item.madeAt)}.`),
    ];
  const approvals = await deps.store.deletionApprovals.of([request.id], item.teamId);
  const decisions = approvals.map(
    (a) => `:white_check_mark: Approved by <@${a.approverId}>, ${slackDate(a.approvedAt)}`,
  );
  // "yet" only while it can still be approved: a closed request's none is final.
  const approvalLines = decisions.length > 0 ? decisions : [request.status === 'pending' ? 'None yet.' : 'None.'];
  if (request.status === 'pending') approvalLines.push(stillNeededText(request));
  return [
    section(
      `*${inlineCode(request.id, 40)}* asked by <@${request.requesterId}> ${howText(item, true)}, ${slackDate(request.createdAt)}`,
    ),
    section(`*Reason*\n${escapeAndCut(request.reason, 1000)}`),
    section(`*Customers* (${request.customerIds.length})\n${customersText(request.customerIds, CUSTOMERS_SHOWN)}`),
    section(
      `*Approvals* (${request.approverIds.length} of ${request.approvalsNeeded} needed)\n${approvalLines.join('\n')}`,
    ),
    section(`*Where it stands*\n${deps.decisions.standingOf(request, viewerId === request.requesterId)}`),
  ];
}

/** What a waiting request still needs and from whom: the approvers fixed when it was asked. */
function stillNeededText(request: DeletionRequest): string {
  const missing = Math.max(0, request.approvalsNeeded - request.approverIds.length);
  const asked = request.approvers
    ? [
        // Those who approved already, and the requester, who may not, are not asked again.
        ...request.approvers.users
          .filter((user) => user !== request.requesterId && !request.approverIds.includes(user))
          .map((user) => `<@${user}>`),
        ...request.approvers.userGroups.map((group) => `<!subteam^${group}>`),
      ]
    : [];
  const needed = `${missing} more approval${missing === 1 ? '' : 's'} needed`;
  // Its expiry is in the line on where it stands, below.
  return asked.length > 0 ? `${needed}, from ${asked.join(', ')}.` : `${needed}.`;
}

async function bulkBlocks(
  deps: Pick<CapabilityDeps, 'store'>,
  item: HistoryItem,
  viewerId: string,
): Promise<KnownBlock[]> {
  const jobId = item.jobId ?? '';
  const jobs = deps.store.bulkJobs.inTeam(item.teamId);
  const job = await jobs.get(jobId);
  if (!job) return [section(`*${inlineCode(jobId, 40)}*\nThe job itself is no longer kept.`)];
  const counts = await jobs.counts(job.id);
  const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}`;
  const results = job.resultsFileId
    ? job.requesterId === viewerId
      ? 'sent to you in your direct messages with the app'
      : `sent to <@${job.requesterId}> in their direct messages with the app`
    : job.resultsNote
      ? escapeAndCut(job.resultsNote, 300)
      : job.status === 'done'
        ? 'not sent'
        : 'comes when the job ends';
  return [
    section(
      `*${inlineCode(job.id, 40)}*: ${escapeAndCut(job.kind, 20)} from ${escapeAndCut(job.sourceName, 200)}${job.retryOf ? ` (retries the failed rows of ${inlineCode(job.retryOf, 40)})` : ''}`,
    ),
    section(
      `*State*\n${bulkStateText(job.status, job.cancelledBy !== undefined)}${job.cancelledBy && job.cancelledBy !== SYSTEM_ACTOR ? ` by <@${job.cancelledBy}>` : ''}${job.note ? ` (${escapeAndCut(job.note, 200)})` : ''}`,
    ),
    section(`*Rows* (${count(job.totalRows, 'in the file')})\n${rowCountParts(counts).join(' · ')}`),
    section(`*Results file*\n${results}`),
  ];
}

/**
 * Why the making failed, in the words its own flow told the person (`:x: *Could not create the mint link.* …`);
 * undefined when the row keeps no reason (it did not fail, or it failed before reasons were kept).
 */
function failedText(item: HistoryItem, thing: string): string | undefined {
  const failure = item.facts.failure;
  if (item.outcome === 'succeeded' || typeof failure !== 'string') return undefined;
  return `:x: *Could not create ${thing}.* ${escapeStrayMrkdwn(failure)}`;
}

/** How the making ended, in words (the audit log's outcomes: succeeded, failed, pending while in flight). */
function outcomeText(outcome: string): string {
  if (outcome === 'succeeded') return 'Made';
  if (outcome === 'failed') return 'Failed: nothing was made';
  if (outcome === 'pending') return 'Not known yet: the service had not answered when this was recorded';
  return escapeAndCut(outcome, 100);
}

/** A date the link's own fields hold (ISO text): as Slack shows dates, or as written when it is not one. */
function dateText(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? escapeAndCut(iso, 60) : slackDate(date);
}
