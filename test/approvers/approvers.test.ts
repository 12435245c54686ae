import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Approvers } from '../../src/approvers/approvers.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { FakeSlack } from '../kit/fake-slack.js';

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
});
