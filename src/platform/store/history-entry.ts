import { z } from 'zod';
import type { HistoryTable } from './tables.js';

/** What History lists: a mint link, a wallet, a deletion request, a bulk job. */
export const HISTORY_KINDS = ['link', 'wallet', 'deletion', 'bulk'] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/**
 * How it was made: a form in Slack (from the command, a shortcut or Home), a workflow step, a message shortcut, a
 * row of a bulk job.
 */
export type HistoryHow = 'form' | 'workflow' | 'message' | 'bulk';

/** The audit operation that makes each kind (the audit entry is written by platform code and the capabilities). */
export const HISTORY_OPERATIONS: Readonly<Record<string, HistoryKind>> = {
  'link.create': 'link',
  'wallet.create': 'wallet',
  'customers.delete.request': 'deletion',
  'bulk.run': 'bulk',
};

/** An audit entry as History reads it: what AuditLog writes, with the inputs as given (not yet bounded). */
export interface AuditedMaking {
  id: string;
  at: Date;
  actorId: string;
  teamId: string | undefined;
  operation: string;
  origin: string | undefined;
  inputs: Record<string, unknown>;
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

const text = z.string().min(1).max(2_000);
const linkInputs = z.object({
  nftId: text.optional(),
  email: text.optional(),
  customerId: z.array(text).optional(),
  maxCheckoutQuantity: z.number().optional(),
  startDate: text.optional(),
  endDate: text.optional(),
  isActive: z.boolean().optional(),
  type: text.optional(),
  walletOptions: text.optional(),
});
const walletInputs = z.object({ userId: text.optional() });
/** The audit log shortens a long list to `{count, first}` (audit-log.ts): the backfill reads the request's own. */
const customerList = z.union([z.array(text), z.object({ count: z.number(), first: z.array(text) })]);
const deletionInputs = z.object({
  requestId: text,
  customerIds: customerList.optional(),
  reason: text.optional(),
  context: text.optional(),
});
const bulkInputs = z.object({
  jobId: text,
  kind: text.optional(),
  source: text.optional(),
  rows: z.number().optional(),
  valid: z.number().optional(),
  retryOf: text.optional(),
  defaults: z.object({ nftId: text.optional() }).loose().optional(),
});

/**
 * The history row an audit entry makes, or undefined when it makes none (another operation, no workspace, or
 * inputs of a shape no version wrote). Only the fields listed here are kept: nothing secret is ever an input
 * of these operations, and nothing else is copied.
 */
export function historyOf(entry: AuditedMaking, fullCustomerIds?: readonly string[]): HistoryRecord | undefined {
  const kind = HISTORY_OPERATIONS[entry.operation];
  if (!kind || !entry.teamId) return undefined;
  const base = {
    id: entry.id,
    team_id: entry.teamId,
    kind,
    actor_id: entry.actorId,
    made_at: entry.at.toISOString(),
    how: howOf(entry),
    outcome: entry.outcome,
    nft_id: null,
    email: null,
    url: null,
    request_id: null,
    job_id: null,
  };
  switch (kind) {
    case 'link': {
      const inputs = linkInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      return linkRecord(base, inputs.data, urlOf(entry));
    }
    case 'wallet': {
      const inputs = walletInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      return walletRecord(base, inputs.data.userId);
    }
    case 'deletion': {
      const inputs = deletionInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      const listed = inputs.data.customerIds;
      const customers = fullCustomerIds ?? (Array.isArray(listed) ? listed : (listed?.first ?? []));
      return record(
        {
          ...base,
          request_id: inputs.data.requestId,
          customer_ids: JSON.stringify(customers),
          facts: JSON.stringify({ reason: inputs.data.reason, context: inputs.data.context }),
        },
        [inputs.data.requestId, ...customers],
      );
    }
    case 'bulk': {
      const inputs = bulkInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      const job = inputs.data;
      const nftId = job.defaults?.nftId;
      return record(
        {
          ...base,
          job_id: job.jobId,
          nft_id: nftId ?? null,
          customer_ids: '[]',
          facts: JSON.stringify({
            of: job.kind,
            source: job.source,
            rows: job.rows,
            valid: job.valid,
            retryOf: job.retryOf,
          }),
        },
        [job.jobId, job.retryOf, nftId, ...searchWords(job.source ?? '')],
      );
    }
  }
}

/** A row of a bulk job that the Mint service made (a link, or a wallet), as its job's worker settled it. */
export interface BulkRowMade {
  job: { id: string; teamId: string; kind: string; starterId: string; sourceName: string };
  rowNumber: number;
  /** The request sent for the row, as stored with it. */
  request: unknown;
  /** A link's URL, as the service answered it. */
  url: string | undefined;
  at: Date;
}

/**
 * The history row of a link (or a wallet) a bulk job made: a row of its own, found by the same words as one made
 * with the form, and by its job's id; made by whoever started the job, `bulk` its how. Its id is the job's and
 * the row's (`BK-…/12`): written twice, it is one row. Undefined when the stored request is of no shape a version
 * wrote.
 */
export function bulkRowHistory(made: BulkRowMade): HistoryRecord | undefined {
  const base = {
    id: `${made.job.id}/${made.rowNumber}`,
    team_id: made.job.teamId,
    kind: made.job.kind === 'wallets' ? 'wallet' : 'link',
    actor_id: made.job.starterId,
    made_at: made.at.toISOString(),
    how: 'bulk',
    outcome: 'succeeded',
    nft_id: null,
    email: null,
    url: null,
    request_id: null,
    job_id: made.job.id,
  } satisfies Omit<HistoryTable, 'customer_ids' | 'facts'>;
  const ofJob = { source: made.job.sourceName, row: made.rowNumber };
  if (made.job.kind === 'wallets') {
    const wallet = walletInputs.safeParse(made.request);
    return wallet.success ? walletRecord(base, wallet.data.userId, ofJob) : undefined;
  }
  const link = linkInputs.safeParse(made.request);
  const url = made.url && /^https?:\/\/\S+$/.test(made.url) ? made.url : null;
  return link.success ? linkRecord(base, link.data, url, ofJob) : undefined;
}

/** What every kind's row has, before what its kind adds. */
type RowBase = Omit<HistoryTable, 'customer_ids' | 'facts'>;

/** Of a link made by a bulk job: the job's file name and the link's row in it. */
type JobFacts = { source: string; row: number };

function linkRecord(base: RowBase, link: z.output<typeof linkInputs>, url: string | null, ofJob?: JobFacts) {
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

/** A link's URL, from its audit entry's detail once it succeeded (the detail says so otherwise). */
export function urlOf(entry: Pick<AuditedMaking, 'operation' | 'outcome' | 'detail'>): string | null {
  if (entry.operation !== 'link.create' || entry.outcome !== 'succeeded' || !entry.detail) return null;
  return /^https?:\/\/\S+$/.test(entry.detail) ? entry.detail : null;
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
    return `Each word needs at least 2 characters; leave out ${short.map((word) => `“${word}”`).join(', ')}. A word matches a whole id, e-mail or link, or part of the maker’s name.`;
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

function howOf(entry: AuditedMaking): HistoryHow {
  if (entry.origin?.startsWith('workflow')) return 'workflow';
  if (entry.operation === 'customers.delete.request' && typeof entry.inputs.context === 'string') return 'message';
  return 'form';
}
