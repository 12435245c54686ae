import type { HistoryTable } from '../tables.js';

/** What History lists: a mint link, a wallet, a deletion request, a bulk job. */
export const HISTORY_KINDS = ['link', 'wallet', 'deletion', 'bulk'] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/**
 * How it was made: a form in Slack (from the command, a shortcut or Home), a workflow step, a message shortcut, a
 * row of a bulk job.
 */
export type HistoryHow = 'form' | 'workflow' | 'message' | 'bulk';

/** A link as History keeps it: the fields of the request POST /v1/link was sent (nothing else is copied). */
export interface LinkMade {
  nftId?: string | undefined;
  email?: string | undefined;
  customerId?: readonly string[] | undefined;
  maxCheckoutQuantity?: number | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
  isActive?: boolean | undefined;
  type?: string | undefined;
  walletOptions?: string | undefined;
}

/** A bulk job as History keeps it when it starts. */
export interface BulkJobMade {
  jobId: string;
  /** What its rows make: `links` or `wallets`. */
  of: string;
  source: string;
  rows: number;
  valid: number;
  retryOf?: string | undefined;
  /** The NFT id the form gave every row. */
  nftId?: string | undefined;
}

/**
 * What an audited operation makes, handed by the capability that runs it to its audit entry (AuditLog.start):
 * the History row is written from this, with the entry, in one transaction. Only these fields are kept: nothing
 * secret is ever one of them.
 */
export type HistoryMade =
  | { kind: 'link'; how: 'form' | 'workflow'; link: LinkMade }
  | { kind: 'wallet'; how: 'form' | 'workflow'; customerId: string | undefined }
  | {
      kind: 'deletion';
      how: 'form' | 'workflow' | 'message';
      requestId: string;
      /** All of them: the audit entry's inputs keep only the first 20 of a long list. */
      customerIds: readonly string[];
      reason: string | undefined;
      /** The permalink of the message it was asked from. */
      context: string | undefined;
    }
  | { kind: 'bulk'; job: BulkJobMade };

/** The audit entry a made thing is written with: its id is the History row's. */
export interface MakingEntry {
  id: string;
  at: Date;
  actorId: string;
  teamId: string | undefined;
  outcome: string;
  detail: string | undefined;
}

/** A history row and its searchable words. */
export interface HistoryRecord {
  row: HistoryTable;
  terms: string[];
}

/** The longest word kept for search (a URL can be long; nobody types more). */
const MAX_TERM = 200;

/** The history row of what an audit entry made; undefined for an entry of no workspace (History is by workspace). */
export function historyRecord(entry: MakingEntry, made: HistoryMade): HistoryRecord | undefined {
  if (!entry.teamId) return undefined;
  const base = {
    id: entry.id,
    team_id: entry.teamId,
    kind: made.kind,
    actor_id: entry.actorId,
    made_at: entry.at.toISOString(),
    how: made.kind === 'bulk' ? 'form' : made.how,
    outcome: entry.outcome,
    nft_id: null,
    email: null,
    url: null,
    request_id: null,
    job_id: null,
  };
  switch (made.kind) {
    case 'link':
      return linkRecord(base, made.link, entry.outcome === 'succeeded' ? urlIn(entry.detail) : null);
    case 'wallet':
      return walletRecord(base, made.customerId);
    case 'deletion':
      return record(
        {
          ...base,
          request_id: made.requestId,
          customer_ids: JSON.stringify(made.customerIds),
          facts: JSON.stringify({ reason: made.reason, context: made.context }),
        },
        [made.requestId, ...made.customerIds],
      );
    case 'bulk': {
      const job = made.job;
      return record(
        {
          ...base,
          job_id: job.jobId,
          nft_id: job.nftId ?? null,
          customer_ids: '[]',
          facts: JSON.stringify({
            of: job.of,
            source: job.source,
            rows: job.rows,
            valid: job.valid,
            retryOf: job.retryOf,
          }),
        },
        [job.jobId, job.retryOf, job.nftId, ...searchWords(job.source)],
      );
    }
  }
}

/** What a bulk job's row made, handed by the worker that sent it: the request it sent. */
export type BulkRowRequest = { kind: 'link'; link: LinkMade } | { kind: 'wallet'; customerId: string | undefined };

/** A row of a bulk job that the Mint service made (a link, or a wallet), as its job's worker settled it. */
export interface BulkRowMade {
  job: { id: string; teamId: string; starterId: string; sourceName: string };
  rowNumber: number;
  made: BulkRowRequest;
  /** A link's URL, as the service answered it. */
  url: string | undefined;
  at: Date;
}

/**
 * The history row of a link (or a wallet) a bulk job made: a row of its own, found by the same words as one made
 * with the form, and by its job's id; made by whoever started the job, `bulk` its how. Its id is the job's and
 * the row's (`BK-…/12`): written twice, it is one row.
 */
export function bulkRowHistory(row: BulkRowMade): HistoryRecord {
  const base = {
    id: `${row.job.id}/${row.rowNumber}`,
    team_id: row.job.teamId,
    kind: row.made.kind,
    actor_id: row.job.starterId,
    made_at: row.at.toISOString(),
    how: 'bulk',
    outcome: 'succeeded',
    nft_id: null,
    email: null,
    url: null,
    request_id: null,
    job_id: row.job.id,
  } satisfies Omit<HistoryTable, 'customer_ids' | 'facts'>;
  const ofJob = { source: row.job.sourceName, row: row.rowNumber };
  return row.made.kind === 'wallet'
    ? walletRecord(base, row.made.customerId, ofJob)
    : linkRecord(base, row.made.link, urlIn(row.url), ofJob);
}

/** What every kind's row has, before what its kind adds. */
type RowBase = Omit<HistoryTable, 'customer_ids' | 'facts'>;

/** Of a link made by a bulk job: the job's file name and the link's row in it. */
type JobFacts = { source: string; row: number };

function linkRecord(base: RowBase, link: LinkMade, url: string | null, ofJob?: JobFacts) {
  const customers = link.customerId ?? [];
  return record(
    {
      ...base,
      nft_id: link.nftId ?? null,
      email: link.email ?? null,
      url,
      customer_ids: JSON.stringify(customers),
      facts: JSON.stringify({
        quantity: link.maxCheckoutQuantity,
        startDate: link.startDate,
        endDate: link.endDate,
        active: link.isActive,
        type: link.type,
        walletOptions: link.walletOptions,
        ...ofJob,
      }),
    },
    [link.nftId, ...customers, ...emailWords(link.email), ...urlWords(url), base.job_id],
  );
}

function walletRecord(base: RowBase, userId: string | undefined, ofJob?: JobFacts) {
  const customers = userId ? [userId] : [];
  return record({ ...base, customer_ids: JSON.stringify(customers), facts: JSON.stringify({ ...ofJob }) }, [
    ...customers,
    base.job_id,
  ]);
}

/** A link's URL, when the text is one (a link's audit detail once it succeeded; the service's answer). */
export function urlIn(text: string | undefined): string | null {
  return text && /^https?:\/\/\S+$/.test(text) ? text : null;
}

/** The words a URL is found by: itself, and its last path segment (the link's own id). */
export function urlWords(url: string | null | undefined): string[] {
  if (!url) return [];
  const path = url.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last && last !== path ? [url, last] : [url];
}

function emailWords(email: string | undefined): string[] {
  if (!email) return [];
  const at = email.lastIndexOf('@');
  return at > 0 ? [email, email.slice(0, at), email.slice(at + 1)] : [email];
}

/**
 * The words of what a person typed: split on spaces and commas, lowercased, Slack's own wrapping of e-mails
 * and links (`<mailto:a@b.c|a@b.c>`, `<https://…>`) and surrounding quotes and brackets taken off.
 */
export function searchWords(typed: string): string[] {
  const unwrapped = typed.replace(/<(?:mailto[:])?([^|>\s]+)(?:\|[^>]*)?>/g, ' $1 ');
  const words = unwrapped
    .split(/[\s,;]+/)
    .map((word) =>
      word
        .replace(/^["'`([{]+/, '')
        .replace(/["'`)\]}.:!?]+$/, '')
        .toLowerCase(),
    )
    // A word longer than any kept (MAX_TERM) stays: searched for, it matches nothing, as it should; dropped, the
    // search would widen to what the other words match.
    .filter((word) => word.length > 0);
  return [...new Set(words)];
}

/** Words one search may have: each is counted and checked on every row read, and more narrow nothing useful. */
export const MAX_SEARCH_WORDS = 8;

/**
 * Why these words (searchWords) cannot be searched for, said to the person: too many, or one of a single
 * character (no id, e-mail or link is one character, and a letter of a name would find nearly everyone).
 */
export function searchWordsProblem(words: readonly string[]): string | undefined {
  if (words.length > MAX_SEARCH_WORDS)
    return `Use at most ${MAX_SEARCH_WORDS} words (you typed ${words.length}): every word must match, so one or two well-chosen ids, e-mails or names find it.`;
  const short = words.filter((word) => [...word].length < 2);
  if (short.length > 0)
    return `Each word needs at least 2 characters; leave out ${short.map((word) => `“${word}”`).join(', ')}. A word matches a whole id, e-mail or link, or part of the name of who made it, or approved or rejected it.`;
  return undefined;
}

function record(row: HistoryTable, words: readonly (string | null | undefined)[]): HistoryRecord {
  const terms = new Set<string>();
  for (const word of words) {
    const term = word?.trim().toLowerCase();
    if (term && term.length <= MAX_TERM) terms.add(term);
  }
  return { row, terms: [...terms] };
}
