import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/platform/ops/config/load-config.js';

const valid = {
  SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefSECRET',
  SLACK_SIGNING_SECRET: 'signing-SECRET-0123456789',
  MINT_API_BASE_URL: 'https://mint.example.com/api',
  MINT_API_KEY: 'mint-key-SECRET-abc',
};

function problems(env: Record<string, string>): string {
  const result = loadConfig({ ...valid, ...env });
  if (result.ok) throw new Error('expected a configuration problem');
  return result.message;
}

function config(env: Record<string, string>) {
  const result = loadConfig({ ...valid, ...env });
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe('approval policy, reminders and audit settings', () => {
  it('defaults: one approval, a reminder after 24 hours, the approvers may export, nothing pruned', () => {
    const c = config({ DELETION_APPROVERS: 'U0AAA111,S0GROUP01' });
    expect(c.deletion.quorum).toEqual({ approvals: 1, large: undefined });
    expect(c.deletion.remindAfterHours).toBe(24);
    expect(c.audit).toEqual({
      viewers: { users: ['U0AAA111'], userGroups: ['S0GROUP01'] },
      viewersAreApprovers: true,
      retentionDays: undefined,
    });
    expect(c.testClockOffsetHours).toBe(0);
  });

  it('reads a quorum, a large quorum with its threshold, fractional hours, viewers and retention', () => {
    const c = config({
      DELETION_APPROVERS: 'U0AAA111,U0BBB222,U0CCC333',
      DELETION_QUORUM: '2',
      DELETION_QUORUM_LARGE: '3',
      DELETION_LARGE_AT: '100',
      DELETION_REMIND_AFTER_HOURS: '1.5',
      AUDIT_VIEWERS: 'U0AUDIT01, S0COMPLY1',
      AUDIT_RETENTION_DAYS: '365',
      TEST_CLOCK_OFFSET_HOURS: '25',
    });
    expect(c.deletion.quorum).toEqual({ approvals: 2, large: { approvals: 3, fromCustomers: 100 } });
    expect(c.deletion.remindAfterHours).toBe(1.5);
    expect(c.audit).toEqual({
      viewers: { users: ['U0AUDIT01'], userGroups: ['S0COMPLY1'] },
      viewersAreApprovers: false,
      retentionDays: 365,
    });
    expect(c.testClockOffsetHours).toBe(25);
    expect(config({ DELETION_REMIND_AFTER_HOURS: '0' }).deletion.remindAfterHours).toBe(0);
  });

  it('reads who administers the settings and whether they may be changed in Slack', () => {
    expect(config({}).settings).toEqual({ admins: { users: [], userGroups: [] }, source: 'slack' });
    expect(config({ SETTINGS_ADMINS: 'U0ADM0001, S0ADMINS1', SETTINGS_SOURCE: 'env' }).settings).toEqual({
      admins: { users: ['U0ADM0001'], userGroups: ['S0ADMINS1'] },
      source: 'env',
    });
  });

  it('refuses a quorum that could never be met, or half of the large one, in one message', () => {
    expect(problems({ DELETION_QUORUM_LARGE: '3' })).toContain(
      'DELETION_LARGE_AT is not set, and DELETION_QUORUM_LARGE needs it',
    );
    expect(problems({ DELETION_LARGE_AT: '50' })).toContain(
      'DELETION_QUORUM_LARGE is not set, and DELETION_LARGE_AT needs it',
    );
    expect(problems({ DELETION_QUORUM: '3', DELETION_QUORUM_LARGE: '2', DELETION_LARGE_AT: '50' })).toContain(
      'DELETION_QUORUM_LARGE must be at least DELETION_QUORUM (3)',
    );
    expect(problems({ DELETION_APPROVERS: 'U0AAA111', DELETION_QUORUM: '2' })).toContain(
      'DELETION_QUORUM is 2, but DELETION_APPROVERS names 1 approver and no user group: no request could ever get 2 approvals',
    );
    // A user group may hold any number of approvers: Slack is asked when they decide.
    expect(config({ DELETION_APPROVERS: 'U0AAA111,S0GROUP01', DELETION_QUORUM: '5' }).deletion.quorum.approvals).toBe(
      5,
    );
  });

  it('says what is wrong with each value, without echoing it', () => {
    const message = problems({
      DELETION_QUORUM: '0',
      DELETION_QUORUM_LARGE: '21',
      DELETION_LARGE_AT: '1001',
      DELETION_REMIND_AFTER_HOURS: '-1',
      AUDIT_VIEWERS: 'U0AAA111,bob',
      AUDIT_RETENTION_DAYS: '0',
      TEST_CLOCK_OFFSET_HOURS: 'soon',
    });
    expect(message).toMatch(/^Mintlink cannot start: 7 configuration problems\./);
    expect(message).toContain('DELETION_QUORUM must be a whole number from 1 to 20');
    expect(message).toContain('DELETION_QUORUM_LARGE must be a whole number from 1 to 20');
    expect(message).toContain('DELETION_LARGE_AT must be a whole number from 1 to 1000');
    expect(message).toContain('DELETION_REMIND_AFTER_HOURS must be a number of hours from 0 to 720');
    expect(message).toContain('AUDIT_VIEWERS has "bob", expected user ids (U.../W...) or user-group ids (S...)');
    expect(message).toContain('AUDIT_RETENTION_DAYS must be a whole number from 1 to 36500');
    expect(message).toContain('TEST_CLOCK_OFFSET_HOURS must be a number of hours from 0 to 100000');
  });
});
