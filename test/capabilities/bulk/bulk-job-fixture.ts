import type { BulkJob } from '../../../src/platform/store/bulk-jobs/jobs.js';

/** A bulk job as the store returns it, for tests that build its messages from fixed values: `over` sets the rest. */
export function bulkJob(over: Partial<BulkJob> = {}): BulkJob {
  const now = new Date('2030-01-01T12:00:00Z');
  return {
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
    retryOf: undefined,
    retriedAs: undefined,
    heldRows: 0,
    ...over,
  };
}
