import type { RowCounts } from '../platform/store/bulk-jobs/jobs.js';

/*
 * The words for a bulk job's rows, shared by everything that counts them: the job's own messages and
 * History's rows and details say the same thing in the same words.
 */

/**
 * What a person reads for a row whose outcome is not known (stored as `unknown`): it was sent, and the Mint
 * service may have created it. The same words in the messages, the results file, the preview and Home.
 */
export const MAYBE_CREATED = 'maybe created';

/**
 * A job's rows counted as its ended message says them: created, failed and maybe created always (`onlyNonZero`:
 * only those that are not zero), then the rows left to send, not sent because the job was cancelled, and with
 * errors in the file, when there are any.
 */
export function rowCountParts(counts: RowCounts, onlyNonZero = false): string[] {
  const count = (n: number, words: string) => `${n.toLocaleString('en-US')} ${words}`;
  const always: [number, string][] = [
    [counts.done, 'created'],
    [counts.failed, 'failed'],
    [counts.unknown, MAYBE_CREATED],
  ];
  const whenAny: [number, string][] = [
    [counts.pending + counts.sending, 'left to send'],
    [counts.cancelled, 'not sent (cancelled)'],
    [counts.invalid, 'with errors in the file (not sent)'],
  ];
  return [...always.filter(([n]) => n > 0 || !onlyNonZero), ...whenAny.filter(([n]) => n > 0)].map(([n, words]) =>
    count(n, words),
  );
}
