import { describe, expect, it } from 'vitest';
import { decisionMetadataKeys, signDecisionMetadata } from '../../../src/capabilities/deletions/decision-rules.js';
import { stepEnd } from '../../../src/capabilities/deletions/step-completion.js';
import {
  approvalMessage,
  fullListMessages,
  outcomeMessage,
  requesterMessage,
  statusLine,
} from '../../../src/capabilities/deletions/messages.js';
import { approveView, rejectView } from '../../../src/capabilities/deletions/decision-modal.js';
import type { DeletionRequest, DeletionStatus } from '../../../src/platform/store/deletion-requests.js';
import { messageProblems, viewProblems } from '../../kit/block-kit-limits.js';

const STATUSES: DeletionStatus[] = [
  'pending',
  'approved',
  'running',
  'done',
  'failed',
  'attention',
  'rejected',
  'cancelled',
  'expired',
];
const longest = (n: number) => Array.from({ length: n }, (_, i) => `${String(i).padStart(4, '0')}${'Z'.repeat(124)}`); // 128 characters each

function request(status: DeletionStatus, customerIds: string[]): DeletionRequest {
  const now = new Date('2026-11-21T10:00:00Z');
  return {
    id: 'DR-ABC234',
    teamId: 'T1',
    requesterId: 'U1',
    customerIds,
    duplicatesRemoved: 3,
    reason: 'r'.repeat(1000),
    status,
    createdAt: now,
    expiresAt: new Date(now.getTime() + 72 * 3_600_000),
    updatedAt: now,
    decidedBy: 'U2',
    decidedAt: now,
    // The largest quorum, one approval short: the longest approval lines any message can carry.
    approvalsNeeded: 20,
    approverIds: Array.from({ length: 19 }, (_, i) => `W0APPROVER${String(i).padStart(2, '0')}`),
    decisionNote: status === 'rejected' ? 'n'.repeat(500) : undefined,
    approvalChannelId: 'C1',
    approvers: { users: ['U2'], userGroups: [] },
    approvalMessageTs: '1.2',
    requesterMessageChannel: 'D1',
    requesterMessageTs: '3.4',
    runStartedAt: now,
    runBy: 'U2',
    finishedAt: now,
    outcomeDetail: status === 'failed' ? 'x'.repeat(2000) : undefined,
    notFoundCount: undefined,
    attempts: 2,
    // The longest context there can be: asked from a message by a workflow.
    origin: 'workflow Wx0123456789',
    contextUrl: `https://example.slack.com/archives/C0123456789/p${'9'.repeat(16)}?thread_ts=${'9'.repeat(17)}`,
  };
}

describe('deletion messages', () => {
  it.each(STATUSES)('stay within Block Kit limits with 1000 IDs of the longest kind (%s)', (status) => {
    const r = request(status, longest(1000));
    for (const message of [
      approvalMessage(r, '<@U2>, <!subteam^S1>'),
      requesterMessage(r),
      outcomeMessage(r),
      ...fullListMessages(r),
    ]) {
      expect(messageProblems(message)).toEqual([]);
    }
  });

  it('list every ID in the thread, and show the first 20 in the message', () => {
    const ids = longest(1000);
    const r = request('pending', ids);
    const thread = fullListMessages(r);
    const text = JSON.stringify(thread);
    expect(ids.every((id) => text.includes(id))).toBe(true);
    expect(thread.every((m) => m.blocks.length <= 50)).toBe(true);
    expect(JSON.stringify(approvalMessage(r, ''))).toContain('and 980 more: the full list is in the thread');
    expect(fullListMessages(request('pending', ['a', 'b']))).toEqual([]);
  });

  it('put Approve/Reject on pending requests, a retry on failed or interrupted ones, nothing otherwise', () => {
    const actions = (status: DeletionStatus) =>
      JSON.stringify(approvalMessage(request(status, ['a']), '')).match(/"action_id":"([a-z_]+)"/g) ?? [];
    expect(actions('pending')).toEqual(
      expect.arrayContaining(['"action_id":"deletion_approve"', '"action_id":"deletion_reject"']),
    );
    expect(actions('pending')).not.toContain('"action_id":"deletion_retry"');
    expect(actions('failed')).toContain('"action_id":"deletion_retry"');
    expect(actions('attention')).toContain('"action_id":"deletion_retry"');
    for (const status of ['approved', 'running', 'done', 'rejected', 'cancelled', 'expired'] as const)
      expect(actions(status)).toEqual([]);
  });

  it('show every ID in the approval modal, within the modal limits', () => {
    const ids = longest(1000);
    const metadata = signDecisionMetadata(decisionMetadataKeys([], 'xoxb-test'), 'approve', 'DR-ABC123', 'U0BOB');
    const view = approveView(request('pending', ids), metadata);
    expect(viewProblems(view)).toEqual([]);
    expect(ids.every((id) => JSON.stringify(view).includes(id))).toBe(true);
    expect(view.submit?.text).toBe('Delete 1000 customers');
    expect(viewProblems(rejectView(request('pending', ids), metadata))).toEqual([]);
  });

  it('count the customers in words that agree with the number', () => {
    const metadata = signDecisionMetadata(decisionMetadataKeys([], 'xoxb-test'), 'approve', 'DR-ABC123', 'U0BOB');
    expect(JSON.stringify(approveView(request('pending', ['c-1']), metadata))).toContain(
      'Approving deletes this *1 customer* for good',
    );
    expect(JSON.stringify(approveView(request('pending', ['c-1', 'c-2']), metadata))).toContain(
      'Approving deletes these *2 customers* for good',
    );
  });

  it('tell a waiting workflow how long an expired request waited, in words that agree with the number', () => {
    expect(stepEnd(request('expired', ['c-1']), 1)).toMatchObject({ error: expect.stringContaining('after 1 hour.') });
    expect(stepEnd(request('expired', ['c-1']), 72)).toMatchObject({
      error: expect.stringContaining('after 72 hours.'),
    });
  });

  it('label the reject reason without "(optional)": Slack adds it to an optional input, once', () => {
    const view = rejectView(request('pending', ['a']), '');
    const inputs = view.blocks.filter((block) => block.type === 'input');
    expect(inputs).toEqual([
      expect.objectContaining({ optional: true, label: expect.objectContaining({ text: 'Why' }) }),
    ]);
  });

  it('count as deleted only the customers the service did not say it could not find', () => {
    const done = (ids: string[], notFoundCount: number | undefined) =>
      statusLine({ ...request('done', ids), notFoundCount }).split('\n')[0];
    expect(done(['a', 'b', 'c'], undefined)).toMatch(/\*Deleted\* 3 customers <!date\^\d+\^[^>]*>\.$/);
    expect(done(['a', 'b', 'c'], 1)).toMatch(/\*Deleted\* 2 customers <!date[^>]*>; 1 was not found\.$/);
    expect(done(['a', 'b', 'c'], 2)).toMatch(/\*Deleted\* 1 customer <!date[^>]*>; 2 were not found\.$/);
    expect(done(['a', 'b'], 2)).toMatch(/\*Nothing deleted\* <!date[^>]*>: the 2 customers were not found\.$/);
    expect(done(['a'], 1)).toMatch(/\*Nothing deleted\* <!date[^>]*>: the customer was not found\.$/);
  });

  it("shows the service's answer as it came only when its counts could not be read", () => {
    const done = (notFoundCount: number | undefined) =>
      statusLine({ ...request('done', ['a', 'b']), outcomeDetail: 'deleted: 2 items, result: ok', notFoundCount });
    expect(done(undefined)).toContain('\nThe service answered: deleted: 2 items, result: ok');
    expect(done(0)).not.toContain('The service answered');
    expect(done(1)).not.toContain('The service answered');
  });
});
