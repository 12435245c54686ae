import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Approvers } from '../../../src/tenancy/workspaces/approvers.js';
import { UserGroups } from '../../../src/capabilities/settings/user-groups.js';
import { createLogger } from '../../../src/platform/ops/telemetry/create-logger.js';
import { FakeSlack } from '../../kit/fake-slack.js';

describe('Approvers', () => {
  let slack: FakeSlack;
  let client: WebClient;
  const logger = createLogger({ level: 'error', scrub: (t) => t, pretty: false });

  beforeAll(async () => {
    slack = await new FakeSlack().start();
    client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(async () => slack.stop());
  beforeEach(() => slack.reset());

  it('accepts listed users without asking Slack', async () => {
    const approvers = new Approvers({ users: ['U1', 'W2'], userGroups: ['S1'] }, client, logger);
    expect(await approvers.check('W2')).toEqual({ approver: true });
    expect(slack.calls).toEqual([]);
  });

  it('accepts members of listed user groups, asking Slack once per group while the cache is fresh', async () => {
    slack.userGroups.set('S1', ['U7']);
    slack.userGroups.set('S2', ['U8']);
    const approvers = new Approvers({ users: [], userGroups: ['S1', 'S2'] }, client, logger);
    const checks = await Promise.all([approvers.check('U7'), approvers.check('U8'), approvers.check('U9')]);
    expect(checks).toEqual([{ approver: true }, { approver: true }, { approver: false }]);
    expect(await approvers.check('U8')).toEqual({ approver: true });
    expect(
      slack
        .callsTo('usergroups.users.list')
        .map((c) => c.params.usergroup)
        .sort(),
    ).toEqual(['S1', 'S2']);
  });

  it('asks again once the cache is stale', async () => {
    slack.userGroups.set('S1', ['U7']);
    let now = 1_000;
    const approvers = new Approvers({ users: [], userGroups: ['S1'] }, client, logger, {
      ttlMs: 50,
      clock: { now: () => now },
    });
    await approvers.check('U7');
    slack.userGroups.set('S1', []);
    now += 49;
    expect(await approvers.check('U7')).toEqual({ approver: true });
    now += 2;
    expect(await approvers.check('U7')).toEqual({ approver: false });
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(2);
  });

  it('asks Slack afresh for a decision, however fresh the cache', async () => {
    slack.userGroups.set('S1', ['U7']);
    const approvers = new Approvers({ users: [], userGroups: ['S1'] }, client, logger);
    expect(await approvers.check('U7')).toEqual({ approver: true });
    slack.userGroups.set('S1', []); // removed from the group a moment ago
    expect(await approvers.check('U7')).toEqual({ approver: true });
    expect(await approvers.check('U7', { askSlack: 'always' })).toEqual({ approver: false });
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(2);
  });

  it('confirms a cached no before refusing a click, and trusts a cached yes', async () => {
    slack.userGroups.set('S1', ['U7']);
    const approvers = new Approvers({ users: [], userGroups: ['S1'] }, client, logger);
    expect(await approvers.check('U8', { askSlack: 'before refusing' })).toEqual({ approver: false }); // loaded now: asked once
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(1);
    slack.userGroups.set('S1', ['U7', 'U8']); // added a moment ago
    expect(await approvers.check('U8')).toEqual({ approver: false });
    expect(await approvers.check('U8', { askSlack: 'before refusing' })).toEqual({ approver: true });
    expect(await approvers.check('U7', { askSlack: 'before refusing' })).toEqual({ approver: true });
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(2);
  });

  it('waits for Slack only so long, then refuses and says why; the late answer still fills the cache', async () => {
    slack.answerNext('usergroups.users.list', { delayMs: 300, body: { ok: true, users: ['U7'] } });
    const approvers = new Approvers({ users: [], userGroups: ['S1'] }, client, logger, { deadlineMs: 100 });
    expect(await approvers.check('U7')).toEqual({
      approver: false,
      problem: 'the members of <!subteam^S1> could not be read (no answer within 100 ms)',
    });
    // Asking again while Slack still works on it joins the same call instead of making another.
    await expect.poll(() => approvers.check('U7'), { timeout: 2_000 }).toEqual({ approver: true });
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(1);
  });

  it('refuses, and says why, when a group cannot be read', async () => {
    const approvers = new Approvers({ users: [], userGroups: ['S404'] }, client, logger);
    expect(await approvers.check('U7')).toEqual({
      approver: false,
      problem: 'the members of <!subteam^S404> could not be read (no_such_subteam)',
    });
    expect(approvers.mentions()).toBe('<!subteam^S404>');
  });

  it('keeps group members within its bound however many groups are looked up, and still answers rightly', async () => {
    const groups = Array.from({ length: 60 }, (_, i) => `S${String(i).padStart(3, '0')}`);
    for (const [i, group] of groups.entries())
      slack.userGroups.set(
        group,
        Array.from({ length: 25 }, (_, n) => `U${i}x${n}`),
      );
    const approvers = new Approvers({ users: [], userGroups: [] }, client, logger, { maxMembersKept: 200 });
    for (const [i, group] of groups.entries()) {
      expect(await approvers.check(`U${i}x3`, { among: { users: [], userGroups: [group] } })).toEqual({
        approver: true,
      });
      expect(approvers.kept.members).toBeLessThanOrEqual(200);
    }
    expect(approvers.kept).toEqual({ groups: 8, members: 200 }); // the 8 groups of 25 looked up last
    // One looked up long ago was let go: asked from Slack again, and answered rightly.
    const asked = slack.callsTo('usergroups.users.list').length;
    expect(await approvers.check('U0x1', { among: { users: [], userGroups: ['S000'] } })).toEqual({ approver: true });
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(asked + 1);
  });

  it('keeps the settings pickers’ lists of groups within their bound, over many workspaces', async () => {
    slack.userGroups.clear();
    for (let i = 0; i < 30; i += 1) slack.userGroups.set(`S${i}`, []);
    const groups = new UserGroups(() => Promise.resolve(client), logger, { maxGroups: 100 });
    for (let team = 0; team < 20; team += 1) {
      expect(await groups.matching('', `T${team}`)).toHaveLength(30);
      expect(groups.kept).toBeLessThanOrEqual(100);
    }
    expect(groups.kept).toBe(90); // the three workspaces asked last
    expect(groups.label('S7', 'T19')).toBe('@s7 (Group S7)');
    expect(groups.label('S7', 'T0')).toBeUndefined(); // let go: read again when its picker asks
  });
});
