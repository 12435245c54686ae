import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockMintService } from '../../src/mock-mint-api/mock-mint-service.js';
import { AppProcess, TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from '../kit/app-process.js';
import { FakeSlack } from '../kit/fake-slack.js';
import { messageProblems } from '../kit/block-kit-limits.js';
import { formBody, slashCommand } from '../kit/slack-payloads.js';

const SUBCOMMANDS = ['help'];

describe.each(['http', 'socket'] as const)('/mintlink in %s mode', (mode) => {
  let slack: FakeSlack;
  let mint: MockMintService;
  let app: AppProcess;

  beforeAll(async () => {
    slack = await new FakeSlack().start();
    mint = new MockMintService({ apiKey: TEST_MINT_API_KEY });
    await mint.listen();
    app = await AppProcess.start({ mode, slack, mintUrl: mint.url });
  });
  afterAll(async () => {
    await app?.stop();
    await mint?.close();
    await slack?.stop();
  });
  beforeEach(() => slack.reset());

  it('answers help with an ephemeral usage listing every subcommand', async () => {
    const { ack, status } = await app.command('help');
    if (mode === 'http') expect(status).toBe(200);
    expect(ack?.response_type).toBe('ephemeral');
    for (const name of SUBCOMMANDS) expect(JSON.stringify(ack?.blocks)).toContain(`/mintlink ${name}`);
    expect(ack?.text).toContain('/mintlink help');
    expect(messageProblems(ack ?? {})).toEqual([]);
  });

  it('names an unknown subcommand and shows the usage', async () => {
    const { ack } = await app.command('frobnicate now');
    expect(ack?.response_type).toBe('ephemeral');
    expect(ack?.text).toContain('"frobnicate"');
    expect(JSON.stringify(ack?.blocks)).toContain('`frobnicate`');
    expect(JSON.stringify(ack?.blocks)).toContain('/mintlink help');
    expect(messageProblems(ack ?? {})).toEqual([]);
  });

  it('shows user text literally, escaped, in the unknown-subcommand answer', async () => {
    const { ack } = await app.command('<!channel>&`x`');
    const blocks = JSON.stringify(ack?.blocks);
    expect(blocks).not.toContain('<!channel>');
    expect(blocks).toContain('&lt;!channel&gt;&amp;');
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    const health = await fetch(`${app.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${app.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    await app.command('help');
    const metrics = await (await fetch(`${app.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/mintlink_commands_handled_total\{subcommand="help",outcome="ok"\} [1-9]/);
    expect(metrics).toContain('# TYPE mintlink_mint_api_call_duration_seconds histogram');
  });

  it('never writes a secret to its logs', async () => {
    await app.command('help');
    for (const secret of [slack.botToken, slack.appToken, TEST_SIGNING_SECRET, TEST_MINT_API_KEY]) {
      expect(app.logs).not.toContain(secret);
    }
  });
});

describe('/mintlink request signatures (HTTP mode)', () => {
  let slack: FakeSlack;
  let mint: MockMintService;
  let app: AppProcess;

  beforeAll(async () => {
    slack = await new FakeSlack().start();
    mint = new MockMintService({ apiKey: TEST_MINT_API_KEY });
    await mint.listen();
    app = await AppProcess.start({ mode: 'http', slack, mintUrl: mint.url });
  });
  afterAll(async () => {
    await app?.stop();
    await mint?.close();
    await slack?.stop();
  });
  beforeEach(() => slack.reset());

  const send = (sign: Parameters<AppProcess['postSigned']>[3]) => {
    const fields = slashCommand(slack, 'help');
    return { fields, response: app.postSigned('/slack/events', formBody(fields), 'application/x-www-form-urlencoded', sign) };
  };

  it.each([
    ['a wrong signature', { signature: `v0=${'0'.repeat(64)}` }],
    ['a signature made with another secret', { secret: 'not-the-signing-secret' }],
    ['no signature', { signature: null }],
    ['a timestamp older than 5 minutes', { timestampSec: Math.floor(Date.now() / 1000) - 6 * 60 }],
  ])('rejects %s with 401 and does nothing', async (_name, sign) => {
    const { fields, response } = send(sign);
    const res = await response;
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain('mintlink');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slack.calls).toEqual([]);
    expect(slack.responsesTo(fields.response_url ?? '')).toEqual([]);
    const metrics = await (await fetch(`${app.baseUrl}/metrics`)).text();
    expect(metrics).not.toMatch(/mintlink_commands_handled_total\{subcommand="help"/);
  });

  it('accepts the same request correctly signed', async () => {
    const { response } = send({});
    expect((await response).status).toBe(200);
  });
});
