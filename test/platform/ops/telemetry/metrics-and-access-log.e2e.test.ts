import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_BLOCK } from '../../../../src/capabilities/deletions/deletion-request-form.js';
import { LINK_BLOCKS } from '../../../../src/capabilities/links/link-form.js';
import { DEMO_CONTRACT_ID } from '../../../../src/operator/mock-mint-api/demo-templates.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from '../../../kit/app-process.js';
import type { RunningApp } from '../../../kit/running-app.js';
import { useFakes } from '../../../kit/fakes.js';
import { TEST_CHANNEL_ID, TEST_TEAM_ID, TEST_USER_ID } from '../../../kit/slack-ids.js';
import { TEMPLATES } from '../../../../src/capabilities/templates/actions.js';
import { LINKS } from '../../../../src/capabilities/links/actions.js';

/** /metrics tells the truth about real flows, and each request leaves one access-log line. */
describe('metrics and the access log', () => {
  const fakes = useFakes();
  let app: RunningApp;
  beforeAll(async () => {
    app = await fakes.startApp('http', {
      env: { APPROVAL_CHANNEL_ID: 'C0APPROVE', DELETION_APPROVERS: 'U0APPROV1', LOG_LEVEL: 'info' },
    });
  });
  afterAll(async () => app?.stop());

  const metrics = async () => (await fetch(`${app.baseUrl}/metrics`)).text();
  const count = (text: string, series: string) =>
    Number(new RegExp(`^${series.replace(/[{}[\]()|.+*?^$\\]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

  it('counts failed commands by what went wrong, not as ok', async () => {
    fakes.mint.failNext('list_templates', { mode: 'status', status: 404 });
    await app.command('templates no-such-contract');
    await app.command('templates');
    await app.command(`templates ${DEMO_CONTRACT_ID} 500`);
    fakes.slack.answerNext('views.open', { body: { ok: false, error: 'invalid_trigger_id' } });
    await app.command('link');
    await app.command('frobnicate');
    await app.waitForIdle();
    const text = await metrics();
    expect(count(text, 'mintlink_requests_total{kind="command",id="templates",outcome="invalid_input"}')).toBe(3);
    expect(count(text, 'mintlink_requests_total{kind="command",id="link",outcome="upstream_error"}')).toBe(1);
    expect(count(text, 'mintlink_requests_total{kind="command",id="unknown",outcome="invalid_input"}')).toBe(1);
    expect(count(text, 'mintlink_requests_total{kind="command",id="templates",outcome="ok"}')).toBe(0);
    expect(count(text, 'mintlink_slack_api_calls_total{method="views.open",error="invalid_trigger_id"}')).toBe(1);
  });

  it('counts clicks, submissions, shortcuts and events by id, and Slack calls by method', async () => {
    const { fields } = await app.command(`templates ${DEMO_CONTRACT_ID} 5`);
    const [page] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    await app.click({ blocks: page?.body.blocks as never }, TEMPLATES.buttons.next.actionId);
    await app.shortcut(LINKS.shortcuts.create.callbackId);
    await fakes.slack.waitForCall('views.open');
    const form = fakes.slack.lastOpenedView();
    await app.submitView(form, { [LINK_BLOCKS.nftId]: null }); // inline error
    await app.submitView(form, { [LINK_BLOCKS.nftId]: 'nft-metrics' });
    await app.event({ type: 'app_home_opened', user: TEST_USER_ID, channel: 'D0ALICE01', tab: 'home' });
    await app.waitForIdle();
    const text = await metrics();
    expect(
      count(text, `mintlink_requests_total{kind="action",id="${TEMPLATES.buttons.next.actionId}",outcome="ok"}`),
    ).toBe(1);
    expect(
      count(text, `mintlink_requests_total{kind="shortcut",id="${LINKS.shortcuts.create.callbackId}",outcome="ok"}`),
    ).toBe(1);
    expect(
      count(text, `mintlink_requests_total{kind="view",id="${LINKS.forms.create.callbackId}",outcome="invalid_input"}`),
    ).toBe(1);
    expect(count(text, `mintlink_requests_total{kind="view",id="${LINKS.forms.create.callbackId}",outcome="ok"}`)).toBe(
      1,
    );
    expect(count(text, 'mintlink_requests_total{kind="event",id="app_home_opened",outcome="ok"}')).toBe(1);
    expect(count(text, 'mintlink_slack_api_calls_total{method="views.open",error="ok"}')).toBeGreaterThanOrEqual(1);
    expect(count(text, 'mintlink_slack_api_calls_total{method="views.publish",error="ok"}')).toBe(1);
    expect(count(text, 'mintlink_slack_api_calls_total{method="response_url",error="ok"}')).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/^mintlink_work_in_flight 0$/m);
  });

  it('shows deletion requests by state', async () => {
    const { view } = await app.commandOpeningModal('delete cus_metrics_1');
    await app.submitView(view, { [REASON_BLOCK]: 'metrics' });
    await app.waitForIdle();
    expect(count(await metrics(), 'mintlink_deletion_requests{status="pending"}')).toBe(1);
  });

  it('writes one access-log line per request, with who and where but no typed text or secret', async () => {
    const before = app.logLines.length;
    await app.command('templates typed-words-stay-private 7');
    await app.waitForIdle();
    const lines = app.logLines.slice(before).filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      kind: 'command',
      id: 'templates',
      user: TEST_USER_ID,
      channel: TEST_CHANNEL_ID,
      team: TEST_TEAM_ID,
      outcome: 'invalid_input', // the mock service does not know that contract
      ms: expect.any(Number),
    });
    const line = JSON.stringify(lines[0]);
    for (const secret of ['typed-words-stay-private', TEST_MINT_API_KEY, TEST_SIGNING_SECRET, fakes.slack.botToken]) {
      expect(line).not.toContain(secret);
    }
  });

  it('logs an expected failure as one line with its code, who and where, and no stack', async () => {
    const before = app.logLines.length;
    fakes.slack.answerNext('views.open', { body: { ok: false, error: 'expired_trigger_id' } });
    await app.command('wallet');
    await app.waitForIdle();
    const failure = app.logLines.slice(before).find((l) => l.msg === 'could not open the modal');
    expect(failure).toMatchObject({
      level: 'warn',
      user: TEST_USER_ID,
      channel: TEST_CHANNEL_ID,
      err: { slackError: 'expired_trigger_id' },
    });
    expect(JSON.stringify(failure)).not.toContain('stack');
  });
});

describe('metrics when deletion is not set up', () => {
  const fakes = useFakes();
  it('counts `delete` as refused', async () => {
    const app = await fakes.startApp('http', {
      env: { APPROVAL_CHANNEL_ID: undefined, DELETION_APPROVERS: undefined },
    });
    try {
      await app.command('delete cus_1');
      await app.waitForIdle();
      const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
      expect(text).toMatch(/^mintlink_requests_total\{kind="command",id="delete",outcome="refused"\} 1$/m);
    } finally {
      await app.stop();
    }
  });
});
