import type { ViewOutput } from '@slack/bolt';
import { format } from 'date-fns/format';
import { parseISO } from 'date-fns/parseISO';
import type { ActionsBlock, InputBlock, KnownBlock, ModalView, SectionBlock } from '@slack/types';
import { context, divider, section } from '../../platform/blocks/blocks.js';
import { rowCountParts } from '../../domain/bulk-words.js';
import { INPUT_ACTION_ID, selectInput, textInput } from '../../platform/blocks/inputs.js';
import { escapeAndCut, inlineCode } from '../../platform/blocks/mrkdwn.js';
import { modal } from '../../platform/blocks/modal.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import { selectedValue, textValue } from '../../platform/blocks/view-state.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import {
  HISTORY_KINDS,
  type HistoryKind,
  searchWords,
  searchWordsProblem,
} from '../../platform/store/history/entry.js';
import type { BulkJobStatus, JobSummary } from '../../platform/store/bulk-jobs/jobs.js';
import type { HistoryItem } from '../../platform/store/history/search.js';
import { HISTORY } from './actions.js';
import { type HistoryFilters, type PageState, SLACK_USER_ID, encodePageState } from './page-state.js';
import type { ReaderZone } from './reader-zone.js';

/**
 * Results a page shows. A page is at most 5 inputs, a divider, the heading, the results with a divider between
 * each two (2 * PAGE_SIZE - 1), where a search stopped, and Previous / Next: 28 blocks of Slack's 100.
 */
export const PAGE_SIZE = 10;

export const SEARCH_BLOCKS = {
  words: 'history_words',
  kind: 'history_kind',
  who: 'history_who',
  from: 'history_from',
  to: 'history_to',
} as const;

const KIND_NAMES: Record<HistoryKind, { one: string; many: string; emoji: string }> = {
  link: { one: 'Link', many: 'Links', emoji: ':link:' },
  wallet: { one: 'Wallet', many: 'Wallets', emoji: ':credit_card:' },
  deletion: { one: 'Deletion request', many: 'Deletion requests', emoji: ':wastebasket:' },
  bulk: { one: 'Bulk job', many: 'Bulk jobs', emoji: ':page_facing_up:' },
};
const ANY_KIND = 'any';
const HOW_TEXT = {
  form: 'in Slack',
  workflow: 'by a workflow',
  message: 'from a message',
  bulk: 'with a bulk job',
} as const;

export function kindName(kind: HistoryKind): string {
  return KIND_NAMES[kind].one;
}

/** How it was made; a bulk job's link or wallet names its job (and, `withRow`, its row in the file). */
export function howText(item: Pick<HistoryItem, 'how' | 'jobId' | 'facts'>, withRow = false): string {
  if (item.how !== 'bulk' || !item.jobId) return HOW_TEXT[item.how];
  const { row, source } = item.facts;
  const where =
    withRow && typeof row === 'number'
      ? ` (row ${row}${typeof source === 'string' ? ` of ${escapeAndCut(source, 80)}` : ''})`
      : '';
  return `with bulk job ${inlineCode(item.jobId, 40)}${where}`;
}

/** A bulk job's state as its people say it. */
const BULK_STATES: Readonly<Record<BulkJobStatus, string>> = {
  draft: 'Checked, not started',
  running: 'Running',
  paused: 'Paused',
  finishing: 'Finishing',
  done: 'Finished',
};

/** `cancelled`: a job that ended because it was cancelled says so. */
export function bulkStateText(status: BulkJobStatus, cancelled: boolean): string {
  return cancelled && status === 'done' ? 'Cancelled' : BULK_STATES[status];
}

/** A page of History: the search form on top, then the results newest first, then Previous / Next. */
export function historyView(page: {
  state: PageState;
  items: readonly HistoryItem[];
  scope: string;
  /** A deletion request's status now, by request id (the row keeps the asking's). */
  statuses?: ReadonlyMap<string, string>;
  /** A bulk job's state and counts now, by job id. */
  jobs?: ReadonlyMap<string, JobSummary>;
  /** Whether the page goes on with a search that had stopped (Keep searching). */
  searchedOn?: boolean;
  /** The reader's time zone, which From and To are days of. */
  zone: ReaderZone;
}): ModalView {
  const { state, items } = page;
  const start = state.before + 1;
  const filtered = describeFilters(state.filters);
  const heading =
    items.length === 0
      ? context(`${page.scope}${filtered ? ` · ${filtered}` : ''}`)
      : context(
          `${page.scope}${filtered ? ` · ${filtered}` : ''} · ${items.length === 1 && !state.newer && !state.older && !state.stopped ? 'the only result' : items.length === 1 ? `result ${start}, newest first` : `results ${start}–${start + items.length - 1}, newest first`}`,
        );
  const stopped = stoppedBlock(state);
  const results: KnownBlock[] =
    items.length === 0
      ? stopped
        ? []
        : [section(emptyText(state, page.searchedOn ?? false))]
      : // A divider between results: each is several lines, which would otherwise run into the next one's.
        items.flatMap((item, i) => [
          ...(i > 0 ? [divider()] : []),
          resultBlock(item, {
            status: page.statuses?.get(item.requestId ?? ''),
            job: item.kind === 'bulk' ? page.jobs?.get(item.jobId ?? '') : undefined,
          }),
        ]);
  const paging = pagingRow(state);
  return modal({
    callbackId: HISTORY.forms.search.callbackId,
    title: 'History',
    submit: 'Search',
    close: 'Close',
    privateMetadata: encodePageState(state),
    blocks: [
      ...searchInputs(state.filters, page.zone),
      divider(),
      heading,
      ...results,
      ...(stopped ? [stopped] : []),
      ...(paging ? [paging] : []),
    ],
  });
}

/**
 * Where a search stopped when it examined its budget of rows before the page filled (two words common but
 * seldom on one row): said plainly, with what was found so far, and Keep searching to go on from there.
 */
function stoppedBlock(state: PageState): SectionBlock | undefined {
  const stopped = state.stopped;
  if (!stopped) return undefined;
  const when = slackDate(new Date(stopped.at.madeAt));
  const found =
    state.shown === 0
      ? 'nothing found yet'
      : state.shown === 1
        ? 'the result above so far'
        : `the ${state.shown} results above so far`;
  const text =
    stopped.toward === 'older'
      ? `:hourglass_flowing_sand: Searched back to ${when}: ${found}. Older ones may match.`
      : `:hourglass_flowing_sand: Searched forward to ${when}: ${found}. Newer ones may match.`;
  return {
    type: 'section',
    block_id: 'history_stopped',
    text: { type: 'mrkdwn', text },
    accessory: buttonOf(HISTORY.buttons.keepSearching),
  };
}

/** Shown while the first page is read, when that takes longer than Slack's trigger allows to wait. */
export function loadingView(filters: HistoryFilters): ModalView {
  return modal({
    title: 'History',
    close: 'Close',
    blocks: [
      section(`:hourglass_flowing_sand: Looking${filters.words ? ` for ${inlineCode(filters.words, 200)}` : ''}…`),
    ],
  });
}

function searchInputs(filters: HistoryFilters, zone: ReaderZone): KnownBlock[] {
  const who: InputBlock = {
    type: 'input',
    block_id: SEARCH_BLOCKS.who,
    optional: true,
    label: { type: 'plain_text', text: 'Made by' },
    element: {
      type: 'users_select',
      action_id: INPUT_ACTION_ID,
      placeholder: { type: 'plain_text', text: 'Anyone' },
      ...(filters.who ? { initial_user: filters.who } : {}),
    },
  };
  const date = (blockId: string, label: string, initial: string | undefined, hint?: string): InputBlock => ({
    type: 'input',
    block_id: blockId,
    optional: true,
    label: { type: 'plain_text', text: label },
    ...(hint ? { hint: { type: 'plain_text', text: hint } } : {}),
    element: {
      type: 'datepicker',
      action_id: INPUT_ACTION_ID,
      placeholder: { type: 'plain_text', text: 'Any day' },
      ...(initial ? { initial_date: initial } : {}),
    },
  });
  return [
    textInput({
      blockId: SEARCH_BLOCKS.words,
      label: 'Words',
      optional: true,
      maxLength: 500,
      initial: filters.words,
      placeholder: 'nft-42 cus_1002 ann@example.com',
      hint: 'Each word must match an NFT id, a customer id, an e-mail (or its name or domain), a link or its id, a DR- or BK- id, or part of the name in Slack of who made it, or approved or rejected it. Up to 8 words, each of 2 characters or more.',
    }),
    selectInput({
      blockId: SEARCH_BLOCKS.kind,
      label: 'What',
      optional: true,
      choices: [
        { label: 'Everything', value: ANY_KIND },
        ...HISTORY_KINDS.map((kind) => ({ label: KIND_NAMES[kind].many, value: kind })),
      ],
      initial: filters.kind ?? ANY_KIND,
    }),
    who,
    date(
      SEARCH_BLOCKS.from,
      zone.known ? `From (day in ${zone.name})` : 'From (UTC day)',
      filters.from,
      zone.known ? undefined : 'Slack did not give your time zone, so these days are in UTC.',
    ),
    date(SEARCH_BLOCKS.to, zone.known ? `To (day in ${zone.name}, included)` : 'To (UTC day, included)', filters.to),
  ];
}

/** One result: what it is and what a person needs to act on it, and its Details. */
function resultBlock(
  item: HistoryItem,
  now: { status: string | undefined; job: JobSummary | undefined },
): SectionBlock {
  const name = KIND_NAMES[item.kind];
  const lines = [`${name.emoji} *${name.one}* ${summary(item)}`];
  const facts = factsLine(item, now);
  if (facts) lines.push(facts);
  lines.push(`<@${item.actorId}> · ${slackDate(item.madeAt)} · ${howText(item)}`);
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: lines.join('\n') },
    accessory: buttonOf(HISTORY.buttons.details, { value: item.id }),
  };
}

function summary(item: HistoryItem): string {
  switch (item.kind) {
    case 'link':
      return item.nftId ? `for NFT ${inlineCode(item.nftId, 100)}` : '';
    case 'wallet':
      return item.customerIds[0] ? `for customer ${inlineCode(item.customerIds[0], 100)}` : 'for a new user';
    case 'deletion':
      return item.requestId ? inlineCode(item.requestId, 40) : '';
    case 'bulk':
      return `${item.jobId ? inlineCode(item.jobId, 40) : ''} of ${escapeAndCut(String(item.facts.of ?? 'rows'), 20)} from ${escapeAndCut(String(item.facts.source ?? 'a file'), 80)}`;
  }
}

function factsLine(item: HistoryItem, now: { status: string | undefined; job: JobSummary | undefined }): string {
  if (item.kind === 'bulk' && now.job) return jobLine(now.job);
  const status = now.status;
  const parts: string[] = [];
  if (item.kind === 'link') {
    if (item.url) parts.push(escapeAndCut(item.url, 300));
    else parts.push(`_${escapeAndCut(item.outcome, 40)}_`);
    if (item.email) parts.push(escapeAndCut(item.email, 100));
  } else if (item.outcome !== 'succeeded' && item.kind !== 'deletion')
    parts.push(`_${escapeAndCut(item.outcome, 40)}_`);
  if (item.kind === 'deletion') parts.push(`_${deletionStateText(status ?? item.outcome)}_`);
  if (item.kind === 'bulk' && typeof item.facts.rows === 'number') parts.push(`${item.facts.rows} rows`);
  if (item.kind !== 'wallet' && item.customerIds.length > 0) parts.push(customersText(item.customerIds, 3));
  return parts.join(' · ');
}

/** A bulk job's state and what its rows came to (the counts that are not zero), as its Details say them. */
function jobLine(job: JobSummary): string {
  const { counts } = job;
  const state = bulkStateText(job.status, job.cancelled);
  const shown = rowCountParts(counts, true);
  return `_${state}_ · ${shown.length > 0 ? shown.join(', ') : 'no rows'}`;
}

/** A deletion request's state as its people say it (the stored statuses are the deletions' own words). */
const DELETION_STATES: Readonly<Record<string, string>> = {
  pending: 'waiting for approval',
  approved: 'approved, deleting',
  running: 'approved, deleting',
  done: 'deleted',
  failed: 'approved, but the deletion failed',
  attention: 'approved, but whether the customers were deleted is not known',
  rejected: 'rejected',
  cancelled: 'cancelled by the requester',
  expired: 'expired without a decision',
};

export function deletionStateText(status: string): string {
  return DELETION_STATES[status] ?? escapeAndCut(status, 40);
}

/** Customer ids in code, the first `shown` of them and how many more. */
export function customersText(ids: readonly string[], shown: number): string {
  const listed = ids
    .slice(0, shown)
    .map((id) => inlineCode(id, 100))
    .join(', ');
  return ids.length > shown ? `${listed} and ${ids.length - shown} more` : listed;
}

function pagingRow(state: PageState): ActionsBlock | undefined {
  const buttons = [
    ...(state.newer ? [buttonOf(HISTORY.buttons.previous)] : []),
    ...(state.older ? [buttonOf(HISTORY.buttons.next)] : []),
  ];
  return buttons.length > 0 ? { type: 'actions', block_id: 'history_paging', elements: buttons } : undefined;
}

function describeFilters(filters: HistoryFilters): string {
  const parts: string[] = [];
  if (filters.words) parts.push(`matching ${inlineCode(filters.words, 200)}`);
  if (filters.kind) parts.push(KIND_NAMES[filters.kind].many.toLowerCase());
  if (filters.who) parts.push(`by <@${filters.who}>`);
  if (filters.from && filters.from === filters.to) parts.push(`on ${dayText(filters.from)}`);
  else {
    if (filters.from) parts.push(`from ${dayText(filters.from)}`);
    if (filters.to) parts.push(`to ${dayText(filters.to)}`);
  }
  return parts.join(', ');
}

/** A chosen day (YYYY-MM-DD) as results say dates: `Mar 6, 2024`. */
function dayText(day: string): string {
  return format(parseISO(day), 'MMM d, yyyy');
}

function emptyText(state: PageState, searchedOn: boolean): string {
  if (state.before > 0)
    return searchedOn
      ? ':mag: Searched to the end: nothing more matches.'
      : 'No more results: they may have been removed meanwhile. Search again to start over.';
  const filtered = describeFilters(state.filters);
  return filtered
    ? state.filters.words.trim()
      ? ':mag: Nothing found. Every word must match one whole id, e-mail or link (or an e-mail’s name or domain), or part of the name in Slack of who made it, or approved or rejected it; try fewer words or filters.'
      : ':mag: Nothing found with these filters; try a wider choice.'
    : ':mag: Nothing here yet: links, wallets, deletion requests and bulk jobs made through the app will show here.';
}

export type SearchFormCheck = { ok: true; filters: HistoryFilters } | { ok: false; errors: Record<string, string> };

/** The filters of a submitted search (its values come from the client: each is checked here). */
export function readSearchForm(values: ViewOutput['state']['values']): SearchFormCheck {
  const kind = selectedValue(values, SEARCH_BLOCKS.kind);
  const who = values[SEARCH_BLOCKS.who]?.[INPUT_ACTION_ID]?.selected_user ?? undefined;
  const from = dayValue(values, SEARCH_BLOCKS.from);
  const to = dayValue(values, SEARCH_BLOCKS.to);
  const errors: Record<string, string> = {};
  if (from === null) errors[SEARCH_BLOCKS.from] = 'Choose a day from the calendar.';
  if (to === null) errors[SEARCH_BLOCKS.to] = 'Choose a day from the calendar.';
  // Nothing History holds is older than the app, and far years are where date arithmetic goes wrong (year 0050
  // read as 1950, year 10000 written with a sign): a day outside these is refused, not searched.
  for (const [blockId, day] of [
    [SEARCH_BLOCKS.from, from],
    [SEARCH_BLOCKS.to, to],
  ] as const)
    if (day && (day < FIRST_DAY || day > LAST_DAY)) errors[blockId] = 'Choose a day between 2000 and 2099.';
  if (from && to && to < from && !errors[SEARCH_BLOCKS.to] && !errors[SEARCH_BLOCKS.from])
    errors[SEARCH_BLOCKS.to] = 'This day comes before the first one: choose a later one.';
  const words = textValue(values, SEARCH_BLOCKS.words) ?? '';
  const wordsProblem = words.length > 500 ? 'At most 500 characters.' : searchWordsProblem(searchWords(words));
  if (wordsProblem) errors[SEARCH_BLOCKS.words] = wordsProblem;
  const knownKind = HISTORY_KINDS.find((k) => k === kind);
  if (kind && kind !== ANY_KIND && !knownKind) errors[SEARCH_BLOCKS.kind] = 'Choose one of the list.';
  if (who !== undefined && !SLACK_USER_ID.test(who)) errors[SEARCH_BLOCKS.who] = 'Choose a person.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, filters: { words, kind: knownKind, who, from: from ?? undefined, to: to ?? undefined } };
}

const FIRST_DAY = '2000-01-01';
const LAST_DAY = '2099-12-31';

/** A datepicker's day; null when it is not a day Slack's picker sends. */
function dayValue(values: ViewOutput['state']['values'], blockId: string): string | undefined | null {
  const day = values[blockId]?.[INPUT_ACTION_ID]?.selected_date;
  if (day === undefined || day === null) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ? day : null;
}
