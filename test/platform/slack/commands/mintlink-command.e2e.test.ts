import { describe, expect, it } from 'vitest';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET, type AppProcess } from '../../../kit/app-process.js';
import { messageProblems } from '../../../kit/block-kit-limits.js';
import { useApp, useFakes } from '../../../kit/fakes.js';
import { formBody, slashCommand } from '../../../kit/slack-payloads.js';

const SUBCOMMANDS = ['link', 'wallet', 'templates', 'delete', 'help'];

describe.each(['http', 'socket'] as const)('/mintlink in %s mode', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode);

  it('answers help with an ephemeral usage listing every subcommand', async () => {
    const { ack, status } = await running.app.command('help');
    if (mode === 'http') expect(status).toBe(200);
    expect(ack?.response_type).toBe('ephemeral');
    for (const name of SUBCOMMANDS) expect(JSON.stringify(ack?.blocks)).toContain(`/mintlink ${name}`);
    expect(ack?.text).toContain('/mintlink help');
    expect(messageProblems(ack ?? {})).toEqual([]);
  });

  it('names an unknown subcommand and shows the usage', async () => {
    const { ack } = await running.app.command('frobnicate now');
    expect(ack?.response_type).toBe('ephemeral');
    expect(ack?.text).toContain('"frobnicate"');
    expect(JSON.stringify(ack?.blocks)).toContain('`frobnicate`');
    expect(JSON.stringify(ack?.blocks)).toContain('/mintlink help');
    expect(messageProblems(ack ?? {})).toEqual([]);
  });

  it('shows user text literally, escaped, in the unknown-subcommand answer', async () => {
    const { ack } = await running.app.command('<!channel>&`x`');
    const blocks = JSON.stringify(ack?.blocks);
    expect(blocks).not.toContain('<!channel>');
    expect(blocks).toContain('&lt;!channel&gt;&amp;');
    // The notification fallback too, and the usages in it (`<contractId>` would be read as a link).
    expect(ack?.text).toContain('/mintlink has no subcommand "&lt;!channel&gt;&amp;`x`".');
    expect(ack?.text).toContain('`/mintlink templates &lt;contractId&gt; [limit] [asc|desc]`');
    for (const text of [String(ack?.text), blocks]) {
      expect(text).not.toMatch(/[<>]/);
      expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    }
    expect(messageProblems(ack ?? {})).toEqual([]);
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    const health = await fetch(`${running.app.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${running.app.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    await running.app.command('help');
    const metrics = await (await fetch(`${running.app.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/mintlink_requests_total\{kind="command",id="help",outcome="ok"\} [1-9]/);
    expect(metrics).toContain('# TYPE mintlink_mint_api_call_duration_seconds histogram');
  });

  it('never writes a secret to its logs', async () => {
    await running.app.command('help');
    for (const secret of [fakes.slack.botToken, fakes.slack.appToken, TEST_SIGNING_SECRET, TEST_MINT_API_KEY]) {
      expect(running.app.logs).not.toContain(secret);
    }
  });
});

describe('/mintlink request signatures (HTTP mode)', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http');

  const send = (sign: Parameters<AppProcess['postSigned']>[3]) => {
    const fields = slashCommand(fakes.slack, 'help');
    return {
      fields,
      response: running.app.postSigned('/slack/events', formBody(fields), 'application/x-www-form-urlencoded', sign),
    };
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
    await running.app.waitForIdle();
    expect(fakes.slack.calls).toEqual([]);
    expect(fakes.slack.responsesTo(fields.response_url ?? '')).toEqual([]);
    const metrics = await (await fetch(`${running.app.baseUrl}/metrics`)).text();
    expect(metrics).not.toMatch(/mintlink_requests_total\{kind="command"/);
  });

  it('accepts the same request correctly signed', async () => {
    const { response } = send({});
    expect((await response).status).toBe(200);
  });
});

describe('/mintlink over HTTP while in Socket Mode', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'socket');

  it.each([
    ['correctly signed', {}],
    ['unsigned', { signature: null }],
  ])('ignores a %s request: Socket Mode takes Slack requests only over its WebSocket', async (_name, sign) => {
    const fields = slashCommand(fakes.slack, 'help');
    const res = await running.app.postSigned(
      '/slack/events',
      formBody(fields),
      'application/x-www-form-urlencoded',
      sign,
    );
    expect(res.status).toBe(404);
    await running.app.waitForIdle();
    expect(fakes.slack.calls).toEqual([]);
    expect(fakes.slack.responsesTo(fields.response_url ?? '')).toEqual([]);
  });
});
