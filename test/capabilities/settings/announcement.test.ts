import { describe, expect, it } from 'vitest';
import { announcement, changesBetween } from '../../../src/capabilities/settings/save-settings.js';
import type { WorkspaceSettings } from '../../../src/tenancy/workspaces/settings-model.js';
import { messageProblems } from '../../kit/block-kit-limits.js';
import { textOf } from '../../kit/slack-checks.js';

const settings = (approvers: string[], quorum: number): WorkspaceSettings => ({
  approvers: { users: approvers, userGroups: [] },
  approvalChannelId: 'C0APPROVE',
  quorum: { approvals: quorum, large: undefined },
  requestTtlHours: 72,
  remindAfterHours: 24,
  auditViewers: undefined,
  bulkConcurrency: 4,
  settingsAdmins: { users: [], userGroups: [] },
});

describe('the announcement of a settings change', () => {
  it('names a few of a long list, keeps every change and the note on waiting requests, within Block Kit', () => {
    const ids = (prefix: string) => Array.from({ length: 100 }, (_, i) => `U${prefix}${String(i).padStart(8, '0')}`);
    const changes = changesBetween(settings(ids('A'), 2), settings(ids('B'), 3));
    const content = announcement('U0ADMIN01', changes);
    const text = textOf(content.blocks);
    expect(text).toContain('and 95 more');
    expect(text.match(/<@U/g)?.length).toBeLessThanOrEqual(11); // five named on each side, and who changed it
    expect(text).toContain('the quorum from 2 approvals to 3 approvals');
    expect(text).toContain('Deletion requests already waiting keep the quorum, approvers and expiry');
    expect(messageProblems(content)).toEqual([]);
  });
});
