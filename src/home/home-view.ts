import type { ActionsBlock, Button, HomeView, KnownBlock } from '@slack/types';
import { cancelButton, decisionButtons } from '../customers/deletion-messages.js';
import type { AuditEntry } from '../store/audit-log.js';
import type { DeletionRequest } from '../store/deletion-requests.js';
import { context, divider, header, section } from '../slack-ui/blocks.js';
import { LIMITS } from '../slack-ui/limits.js';
import { escapeAndCut, inlineCode } from '../slack-ui/mrkdwn.js';
import { slackDate } from '../slack-ui/slack-date.js';
import { ACTIVITY_SHOWN, type HomeData, type HomeStatus } from './home-data.js';
import { customerCount } from '../customers/customer-ids.js';

export const HOME_ACTIONS = {
  createLink: 'home_create_link',
  createWallet: 'home_create_wallet',
  requestDeletion: 'home_request_deletion',
  browseTemplates: 'home_browse_templates',
  allApprovals: 'home_all_approvals',
  allOwnRequests: 'home_all_own_requests',
  allActivity: 'home_all_activity',
} as const;

const button = (actionId: string, text: string, style?: 'primary'): Button => ({
  type: 'button',
  action_id: actionId,
  text: { type: 'plain_text', text, emoji: true },
  ...(style ? { style } : {}),
});
const buttons = (blockId: string, ...elements: Button[]): ActionsBlock => ({ type: 'actions', block_id: blockId, elements });

/** The user's Home: the flows, what waits for them, what they did lately, and how the app is set up. */
export function homeView(data: HomeData): HomeView {
  const blocks: KnownBlock[] = [
    header('Mintlink'),
    section('Operate the Mint Link and Wallet service from Slack. Start here, or type `/mintlink help`.'),
    buttons(
      'flows',
      button(HOME_ACTIONS.createLink, 'Create mint link', 'primary'),
      button(HOME_ACTIONS.createWallet, 'Create wallet'),
      button(HOME_ACTIONS.requestDeletion, 'Request customer deletion'),
      button(HOME_ACTIONS.browseTemplates, 'Browse templates'),
    ),
    divider(),
  ];
  if (data.approvals) {
    blocks.push(section(`*Waiting for your approval* (${data.approvals.count})`));
    if (data.approvals.count === 0) blocks.push(context('Nothing waits for your approval.'));
    for (const r of data.approvals.newest) blocks.push(section(requestLine(r, true)), decisionButtons(r, `approve_${r.id}`));
    if (data.approvals.count > data.approvals.newest.length) blocks.push(buttons('all_approvals', button(HOME_ACTIONS.allApprovals, `See all ${data.approvals.count}`)));
    blocks.push(divider());
  }
  if (data.ownPending.count > 0) {
    blocks.push(section(`*Your requests waiting for approval* (${data.ownPending.count})`));
    for (const r of data.ownPending.newest) blocks.push(section(requestLine(r, false)), cancelButton(r, `cancel_${r.id}`));
    if (data.ownPending.count > data.ownPending.newest.length) blocks.push(buttons('all_own', button(HOME_ACTIONS.allOwnRequests, `See all ${data.ownPending.count}`)));
    blocks.push(divider());
  }
  blocks.push(section(`*Your recent activity*\n${data.activity.length > 0 ? data.activity.map(activityLine).join('\n') : '_Nothing yet._'}`));
  if (data.activity.length >= ACTIVITY_SHOWN) blocks.push(buttons('all_activity', button(HOME_ACTIONS.allActivity, 'See more')));
  blocks.push(divider(), context(...statusLines(data.status)));
  return { type: 'home', blocks: blocks.slice(0, LIMITS.viewBlocks) };
}

/** One deletion request in a line (Home and its lists). */
export function requestLine(r: DeletionRequest, withRequester: boolean): string {
  const who = withRequester ? `<@${r.requesterId}> asks to delete` : 'to delete';
  return `*${r.id}* · ${who} *${customerCount(r.customerIds.length)}* · ${slackDate(r.createdAt)}\n_${escapeAndCut(r.reason, 300)}_`;
}

const OPERATIONS: Record<string, string> = {
  'link.create': 'Created a mint link',
  'wallet.create': 'Created a wallet',
  'customers.delete.request': 'Asked to delete customers',
  'customers.delete.approve': 'Approved a customer deletion',
  'customers.delete.reject': 'Rejected a customer deletion',
  'customers.delete.cancel': 'Cancelled a deletion request',
  'customers.delete.run': 'Ran a customer deletion',
};
const OUTCOMES: Record<string, string> = {
  succeeded: ':white_check_mark: done',
  failed: ':x: failed',
  pending: ':hourglass_flowing_sand: started',
  approved: ':white_check_mark: approved',
  rejected: ':no_entry_sign: rejected',
  cancelled: ':heavy_multiplication_x: cancelled',
};

/** One audit entry: what, when, how it ended, and the link of a created link. */
export function activityLine(entry: AuditEntry): string {
  const what = OPERATIONS[entry.operation] ?? entry.operation;
  const outcome = OUTCOMES[entry.outcome] ?? entry.outcome;
  const subject =
    entry.operation === 'link.create' && typeof entry.inputs.nftId === 'string'
      ? ` for NFT ${inlineCode(entry.inputs.nftId.slice(0, 60))}`
      : typeof entry.inputs.requestId === 'string'
        ? ` ${entry.inputs.requestId}`
        : '';
  const url = entry.operation === 'link.create' && entry.outcome === 'succeeded' && entry.detail?.startsWith('http') ? ` · <${entry.detail}|open the link>` : '';
  return `• ${what}${subject} · ${outcome} · ${slackDate(entry.at)}${url}`;
}

function statusLines(status: HomeStatus): string[] {
  const mode = status.mode === 'socket' ? 'Socket Mode' : 'HTTP mode';
  const deletion =
    'settings' in status.deletion
      ? `Customer deletion: requests wait in <#${status.deletion.settings.approvalChannelId}>, approvers ${status.deletion.approvers}`
      : `Customer deletion: not set up (${status.deletion.missing.join(' and ')} missing)`;
  const { lastAnsweredAt, lastFailure } = status.mint;
  const mint =
    lastFailure && (!lastAnsweredAt || lastFailure.at > lastAnsweredAt)
      ? `Mint service: last call failed ${slackDate(lastFailure.at)} (${lastFailure.kind.replace('_', ' ')})`
      : lastAnsweredAt
        ? `Mint service: answered ${slackDate(lastAnsweredAt)}`
        : 'Mint service: not called since this instance started';
  return [`*Status* · ${mode}`, deletion, mint];
}
