import { describe, expect, it } from 'vitest';
import { progressMessage, type Progress } from '../../src/bulk/progress-message.js';
import type { BulkJob, RowCounts } from '../../src/store/bulk-jobs.js';
import { messageProblems } from '../kit/block-kit-limits.js';
import { textOf } from '../kit/slack-checks.js';

const now = new Date('2030-01-01T12:00:00Z');
const job = (over: Partial<BulkJob> = {}): BulkJob => ({
  id: 'BK-ABC234',
  teamId: 'T1',
  requesterId: 'U1',
  kind: 'links',
  status: 'running',
  sourceName: '*bold* <!channel> `x`.csv',
  columns: ['email'],
  defaults: {},
  totalRows: 5_000,
  validRows: 4_000,
  createdAt: now,
  updatedAt: now,
  startedAt: now,
  finishedAt: undefined,
  changedBy: undefined,
  note: undefined,
  cancelledBy: undefined,
  auditId: 'a',
  messageChannel: 'D1',
  messageTs: '1.1',
  progressAt: undefined,
  progressDigest: undefined,
  finishClaimedAt: undefined,
  finishAttempts: 0,
  resultsFileId: undefined,
  resultsNote: undefined,
  ...over,
});
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
  it('shows done, failed, unknown and left, a bar, the rate and the time left, and Pause and Cancel', () => {
    const content = show();
    const text = textOf(content.blocks);
    expect(text).toContain('`▓▓▓▓▓▓▓▓▓▓░░░░░░░░░░` 49%');
    expect(text).toContain('*1,900 done* · *90 failed* · *6 unknown* · *2,004 left*');
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
      '*Cancelled* by <@U2>: *1,900 created* · 90 failed · 6 unknown · 2,004 not sent (cancelled)',
    );
    expect(textOf(done.blocks)).toContain('bulk_resend_results');
    expect(textOf(done.blocks)).not.toContain('bulk_pause');
    expect(messageProblems(done)).toEqual([]);
  });
});
