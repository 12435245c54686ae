import type { HomeView, KnownBlock } from '@slack/types';
import type { HomeEntry } from '../../platform/slack/app-home/home-publisher.js';
import type { MintServiceStatus } from '../../platform/mint/mint-api-client.js';
import type { AuditEntry } from '../../platform/store/audit-log.js';
import { actionsRow, context, divider, header, section } from '../../platform/blocks/blocks.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import { HOME } from './actions.js';
import { LIMITS } from '../../platform/blocks/limits.js';
import { inlineCode } from '../../platform/blocks/mrkdwn.js';
import { slackDate } from '../../platform/blocks/slack-date.js';

export const ACTIVITY_SHOWN = 10;

/** One user's Home, as read from the entries and the audit log at one moment. */
export interface HomeContent {
  /** The flows this user may use. */
  flows: ReadonlyArray<NonNullable<HomeEntry['flow']>>;
  /** The blocks of the entries that go above everything else (`top`), in their order. */
  top: KnownBlock[];
  /** The other entries' blocks, in their order. */
  sections: KnownBlock[];
  activity: AuditEntry[];
  /** The current status of the deletion requests the activity approved (see request-states.ts). */
  requestStates: ReadonlyMap<string, string>;
  status: string[];
}

/** The user's Home: the flows, what waits for them, what they did lately, and how the app is set up. */
export function homeView(content: HomeContent): HomeView {
  const blocks: KnownBlock[] = [
    header('Mintlink'),
    ...content.top,
    section('Operate the Mint Link and Wallet service from Slack. Start here, or type `/mintlink help`.'),
    actionsRow('flows', ...content.flows.map((f) => buttonOf(f))),
    divider(),
    ...content.sections,
    section(
      `*Your recent activity*\n${content.activity.length > 0 ? content.activity.map((entry) => activityLine(entry, content.requestStates)).join('\n') : '_Nothing yet._'}`,
    ),
  ];
  if (content.activity.length >= ACTIVITY_SHOWN)
    blocks.push(actionsRow('all_activity', buttonOf(HOME.buttons.allActivity)));
  blocks.push(divider(), context(...content.status));
  return { type: 'home', blocks: blocks.slice(0, LIMITS.viewBlocks) };
}

/** Every operation the audit log records, as a person reads it on Home (ids are for the CSV). */
export const OPERATIONS: Record<string, string> = {
  'link.create': 'Created a mint link',
  'wallet.create': 'Created a wallet',
  'customers.delete.request': 'Requested a customer deletion',
  'customers.delete.approve': 'Approved a customer deletion',
  'customers.delete.reject': 'Rejected a customer deletion',
  'customers.delete.cancel': 'Cancelled a deletion request',
  'customers.delete.expire': 'Expired a deletion request',
  'customers.delete.interrupted': 'Marked an interrupted deletion for attention',
  'customers.delete.run': 'Ran a customer deletion',
  'bulk.run': 'Ran a bulk job',
  'bulk.pause': 'Paused a bulk job',
  'bulk.resume': 'Resumed a bulk job',
  'bulk.cancel': 'Cancelled a bulk job',
  'audit.export': 'Exported the audit log',
  'audit.prune': 'Removed old audit log entries',
  'settings.change': 'Changed the settings',
  'settings.open': 'Opened the settings',
  'mint_account.connect': 'Connected the Mint account',
  'mint_account.replace': 'Replaced the Mint account key',
  'mint_account.remove': 'Removed the Mint account',
};

/**
 * Outcomes as a person reads them. A deletion request's entry follows the request's status (pending while it
 * waits, then approved, running, done, or how else it ended).
 */
const OUTCOMES: Record<string, string> = {
  succeeded: ':white_check_mark: done',
  done: ':white_check_mark: done',
  failed: ':x: failed',
  pending: ':hourglass_flowing_sand: started',
  approved: ':white_check_mark: approved',
  running: ':gear: running',
  rejected: ':no_entry_sign: rejected',
  cancelled: ':heavy_multiplication_x: cancelled',
  expired: ':hourglass: expired',
  attention: ':warning: needs attention',
  'done with failures': ':warning: done with failures',
  paused: ':double_vertical_bar: paused',
  resumed: ':arrow_forward: resumed',
  refused: ':no_entry: refused',
};

/** A deletion request's own words for its waiting: it waits for approvers rather than running. */
const ASKED_PENDING = ':hourglass_flowing_sand: waiting for approval';

/**
 * One audit entry: what, when, how it ended, and the link of a created link. An approval reads as what the
 * approver did (which approval it was) and where the request stands now (`requestStates`, by request id).
 */
export function activityLine(entry: AuditEntry, requestStates: ReadonlyMap<string, string> = new Map()): string {
  const what = OPERATIONS[entry.operation] ?? entry.operation;
  const outcome =
    entry.operation === 'customers.delete.approve'
      ? approvalOutcome(entry, requestStates)
      : entry.operation === 'customers.delete.request' && entry.outcome === 'pending'
        ? ASKED_PENDING
        : (OUTCOMES[entry.outcome] ?? entry.outcome);
  const subject =
    entry.operation === 'link.create' && typeof entry.inputs.nftId === 'string'
      ? ` for NFT ${inlineCode(entry.inputs.nftId.slice(0, 60))}`
      : typeof entry.inputs.requestId === 'string'
        ? ` ${entry.inputs.requestId}`
        : typeof entry.inputs.jobId === 'string'
          ? ` ${entry.inputs.jobId}`
          : '';
  const url =
    entry.operation === 'link.create' && entry.outcome === 'succeeded' && entry.detail?.startsWith('http')
      ? ` · <${entry.detail}|open the link>`
      : '';
  return `• ${what}${subject} · ${outcome} · ${slackDate(entry.at)}${url}`;
}

/** "approval 1 of 2 · ❌ failed": which approval it was, and the request's state now (recorded, when gone). */
function approvalOutcome(entry: AuditEntry, requestStates: ReadonlyMap<string, string>): string {
  const { approval, approvalsNeeded, requestId } = entry.inputs;
  const which =
    typeof approval === 'number' && typeof approvalsNeeded === 'number' && approvalsNeeded > 1
      ? `approval ${approval} of ${approvalsNeeded} · `
      : '';
  const state = typeof requestId === 'string' ? requestStates.get(requestId) : undefined;
  const now =
    state === undefined
      ? ':white_check_mark: recorded'
      : state === 'pending'
        ? ASKED_PENDING
        : (OUTCOMES[state] ?? state);
  return `${which}${now}`;
}

/**
 * The status footer's first line: how the Mint service last answered. (How the instance reaches Slack, Socket
 * Mode or HTTP, means nothing to the people using it; the operator's `doctor` and the Setup checklist say it.)
 */
export function appStatusLines(mint: MintServiceStatus | undefined): string[] {
  const { lastAnsweredAt, lastFailure } = mint ?? {};
  const mintLine = !mint
    ? 'Mint service: no account connected'
    : lastFailure && (!lastAnsweredAt || lastFailure.at > lastAnsweredAt)
      ? `Mint service: last call failed ${slackDate(lastFailure.at)} (${lastFailure.kind.replace('_', ' ')})`
      : lastAnsweredAt
        ? `Mint service: answered ${slackDate(lastAnsweredAt)}`
        : 'Mint service: not called since this instance started';
  return [`*Status* · ${mintLine}`];
}
