import { describe, expect, it } from 'vitest';
import { progressMessage, type Progress } from '../../../src/capabilities/bulk/progress-message.js';
import type { BulkJob, RowCounts } from '../../../src/platform/store/bulk-jobs/jobs.js';
import { messageProblems } from '../../kit/block-kit-limits.js';
import { textOf } from '../../kit/slack-checks.js';
import { bulkJob } from './bulk-job-fixture.js';

const now = new Date('2030-01-01T12:00:00Z');
const job = (over: Partial<BulkJob> = {}): BulkJob => bulkJob(over);
const counts = (over: Partial<RowCounts> = {}): RowCounts => ({
  invalid: 1_000,
  pending: 2_000,
  sending: 4,
  done: 1_900,
  failed: 90,
  unknown: 6,
  cancelled: 0,
  ...over,
});
const show = (over: Partial<Progress> = {}) =>
  progressMessage({
    job: job(),
    counts: counts(),
    ratePerSecond: 20,
    mint: { pausedUntil: undefined, circuit: 'closed' },
    now,
    ...over,
  });

describe('progressMessage', () => {
  it('shows done, failed, maybe created and left, a bar, the rate and the time left, and Pause and Cancel', () => {
    const content = show();
    const text = textOf(content.blocks);
    expect(text).toContain('`▓▓▓▓▓▓▓▓▓▓░░░░░░░░░░` 49%');
    expect(text).toContain('*1,900 done* · *90 failed* · *6 maybe created* · *2,004 left*');
    expect(text).toContain('1,200 a minute · about 2 min left');
    expect(text).toContain('bulk_pause');
    expect(text).toContain('bulk_cancel');
    expect(text).not.toContain('<!channel>'); // the file name is the user's text, escaped
    expect(messageProblems(content)).toEqual([]);
  });

  it('says paused (and why, when the app paused it), waiting for the service, and the totals at the end', () => {
    const paused = textOf(
      show({ job: job({ status: 'paused', changedBy: 'system', note: 'Credentials refused.' }) }).blocks,
    );
    expect(paused).toContain('*Paused*. Credentials refused.');
    expect(paused).toContain('bulk_resume');
    const waiting = textOf(show({ mint: { pausedUntil: new Date(now.getTime() + 5_000), circuit: 'closed' } }).blocks);
    expect(waiting).toContain('*Waiting*: the Mint service asked the app to wait');
    expect(textOf(show({ mint: { pausedUntil: undefined, circuit: 'open' } }).blocks)).toContain('is failing');
    const done = show({
      job: job({ status: 'done', cancelledBy: 'U2', resultsFileId: undefined, resultsNote: 'Slack refused it.' }),
      counts: counts({ pending: 0, sending: 0, cancelled: 2_004 }),
    });
    expect(textOf(done.blocks)).toContain(
      '*Cancelled* by <@U2>: *1,900 created* · 90 failed · 6 maybe created · 2,004 not sent (cancelled)',
    );
    expect(textOf(done.blocks)).toContain('bulk_resend_results');
    expect(textOf(done.blocks)).not.toContain('bulk_pause');
    expect(messageProblems(done)).toEqual([]);
  });

  it('offers "Retry failed rows" on an ended job with failed or unknown rows, until its retry has started', () => {
    const ended = { status: 'done' as const, resultsFileId: 'F1', finishedAt: now };
    const settled = { pending: 0, sending: 0 };
    const withFailures = show({ job: job(ended), counts: counts(settled) });
    expect(textOf(withFailures.blocks)).toContain('bulk_retry');
    expect(textOf(withFailures.blocks)).toContain('Retry failed rows');
    expect(messageProblems(withFailures)).toEqual([]);
    const unknownOnly = show({ job: job(ended), counts: counts({ ...settled, failed: 0 }) });
    expect(textOf(unknownOnly.blocks)).toContain('bulk_retry');
    const none = show({ job: job(ended), counts: counts({ ...settled, failed: 0, unknown: 0 }) });
    expect(textOf(none.blocks)).not.toContain('bulk_retry');
    const retried = show({ job: job({ ...ended, retriedAs: 'BK-NEW234' }), counts: counts(settled) });
    expect(textOf(retried.blocks)).toContain('Its failed rows were retried as *BK-NEW234*.');
    expect(textOf(retried.blocks)).not.toContain('bulk_retry');
    // Both buttons in one row when the results file must be sent again too.
    const both = show({ job: job({ ...ended, resultsFileId: undefined }), counts: counts(settled) });
    const rows = both.blocks.filter((b) => b.type === 'actions');
    expect(rows).toHaveLength(1);
    expect(textOf(rows)).toContain('bulk_resend_results');
    expect(textOf(rows)).toContain('bulk_retry');
  });
});
