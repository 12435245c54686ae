import { z } from 'zod';
import { HISTORY_KINDS, searchWords, searchWordsProblem } from '../../platform/store/history/entry.js';

/** A Slack user id as the form's person picker gives it (and as the page state must hold it). */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,39}$/;

/** What the person searched for, as the form holds it. */
export interface HistoryFilters {
  /** The words as typed. */
  words: string;
  kind?: (typeof HISTORY_KINDS)[number] | undefined;
  /** A Slack user id. */
  who?: string | undefined;
  /** Days, YYYY-MM-DD, of the reader's time zone (UTC when Slack does not say it), both included. */
  from?: string | undefined;
  to?: string | undefined;
}

const cursor = z.object({ madeAt: z.string().max(40), id: z.string().max(100) });
// A day that exists (2026-02-31 does not): a forged one would otherwise reach the query as an invalid date.
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  });

/**
 * The page a History modal shows, kept in its private_metadata: whose and which workspace's it is (a click is
 * refused unless both are the clicker's), the filters, how many results came before it and how many it shows,
 * its first and last rows (where Previous and Next read from), whether there is more either way, and where its
 * search stopped when it examined its budget of rows before the page filled (where Keep searching reads from,
 * and which way).
 */
const pageStateSchema = z.object({
  team: z.string().min(1).max(40),
  user: z.string().min(1).max(40),
  filters: z.object({
    // Only words the form accepts: a forged state gets no search the form would refuse.
    words: z
      .string()
      .max(500)
      .refine((words) => !searchWordsProblem(searchWords(words))),
    kind: z.enum(HISTORY_KINDS).optional(),
    who: z.string().regex(SLACK_USER_ID).optional(),
    from: day.optional(),
    to: day.optional(),
  }),
  before: z.number().int().min(0).max(10_000_000),
  shown: z.number().int().min(0).max(100),
  first: cursor.optional(),
  last: cursor.optional(),
  newer: z.boolean(),
  older: z.boolean(),
  stopped: z.object({ at: cursor, toward: z.enum(['older', 'newer']) }).optional(),
});

export type PageState = z.output<typeof pageStateSchema>;

export function encodePageState(state: PageState): string {
  return JSON.stringify(state);
}

/** The state of a view, or undefined when it is not one the app wrote (a forged or older view). */
export function decodePageState(metadata: string | undefined): PageState | undefined {
  if (!metadata) return undefined;
  try {
    const parsed = pageStateSchema.safeParse(JSON.parse(metadata));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** No filter at all but the words (say, from `/mintlink history nft-42`). */
export function wordsOnly(words: string): HistoryFilters {
  return { words, kind: undefined, who: undefined, from: undefined, to: undefined };
}
