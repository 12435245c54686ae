import { Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from './kit/app-process.js';
import { type Fakes, useFakes } from './kit/fakes.js';
import { freePort } from './kit/free-port.js';
import { keptAliveGet, type RunningApp } from './kit/running-app.js';

/*
 * The app as `npm start` runs it. A process is started where the process is the point: main()'s refusal of a
 * configuration, .env, a start that fails, signals and exit codes. What start-mintlink.ts decides (a start
 * refused by Slack, a port or a database, readiness, /metrics, Socket Mode, draining work on a stop) is
 * checked on the same app started in the test's own process, which takes a fraction of a process's start: here
 * where it pairs with a process's case, the rest in start-mintlink.e2e.test.ts (a file of its own, so that the
 * two run on two workers).
 */
const fakes = useFakes();
const startProcess: Fakes['startProcess'] = (mode, options) => fakes.startProcess(mode, options);
const startApp: Fakes['startApp'] = (mode, options) => fakes.startApp(mode, options);

describe('start-up', () => {
  it('prints one message listing every configuration problem, exits 1, and shows no secret', async () => {
    const app = await startProcess('http', {
      expectExit: true,
      env: {
        SLACK_BOT_TOKEN: 'xoxp-user-Leak9Check',
        SLACK_SIGNING_SECRET: undefined,
        MINT_API_KEY: undefined,
        PORT: 'eighty',
      },
    });
    expect(await app.exitCode).toBe(1);
    expect(app.logs).toMatch(/^Mintlink cannot start: 4 configuration problems\./);
    expect(app.logs.match(/Mintlink cannot start/g)).toHaveLength(1);
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'PORT', 'MINT_API_KEY'])
      expect(app.logs).toContain(`- ${name} `);
    expect(app.logs).not.toContain('Leak9Check');
    expect(fakes.slack.calls).toEqual([]);
  });

  it('reads .env from the working directory; the environment wins over it', async () => {
    const app = await startProcess('http', {
      env: { MINT_API_KEY: undefined, LOG_LEVEL: 'info' },
      files: { '.env': `MINT_API_KEY=${TEST_MINT_API_KEY}\nLOG_LEVEL=debug\n` },
    });
    try {
      expect(app.logLines.some((l) => l.level === 'debug')).toBe(false);
      expect((await app.command('help')).ack?.response_type).toBe('ephemeral');
    } finally {
      await app.stop();
    }
  });

  // The process exits 1 in HTTP mode; Socket Mode's start is refused the same way, in the test's process.
  it.each([
    ['http', startProcess],
    ['socket', startApp],
  ] as const)('stops with a clear message when Slack rejects the bot token (%s mode)', async (mode, start) => {
    const app = await start(mode, { expectExit: true, env: { SLACK_BOT_TOKEN: 'xoxb-revoked-token-000000' } });
    expect(await app.exitCode).toBe(1);
    expect(app.logs).toContain('Slack rejected SLACK_BOT_TOKEN (invalid_auth)');
    expect(app.logs).not.toContain('xoxb-revoked-token-000000');
  });
});

/** Two apps started side by side; when one did not start, the other is stopped and the error thrown. */
async function bothStarted<A extends RunningApp>(starting: [Promise<A>, Promise<A>]): Promise<[A, A]> {
  const [first, second] = await Promise.allSettled(starting);
  if (first.status === 'fulfilled' && second.status === 'fulfilled') return [first.value, second.value];
  for (const outcome of [first, second]) if (outcome.status === 'fulfilled') await outcome.value.stop();
  throw first.status === 'rejected' ? first.reason : second.status === 'rejected' ? second.reason : undefined;
}

describe('shutdown', () => {
  // On SIGTERM the process drains its work in HTTP mode; the drain itself is start-mintlink.ts's, the same in
  // Socket Mode, checked in the test's process.
  it.each([
    ['http', startProcess],
    ['socket', startApp],
  ] as const)('lets work in flight finish before exiting (%s mode)', async (mode, start) => {
    const app = await start(mode);
    fakes.mint.latencyMs = 1_000;
    await app.command('link');
    await fakes.slack.waitForCall('views.open');
    const view = fakes.slack.lastOpenedView();
    await app.submitView(view, { nft_id: 'nft-in-flight' });
    await fakes.slack.waitFor(() => fakes.mint.requests.length === 1, 2_000, 'the Mint call');

    const exited = app.stop('SIGTERM');
    await fakes.slack.waitForCall('views.update', (c) => c.params.view_id === view.id, 5_000);
    await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => String(c.params.text).startsWith('Mint link created'),
      5_000,
    );
    expect(await exited).toBe(0);
    expect(app.logLines.find((l) => l.msg === 'shutting down')).toMatchObject({ workInFlight: 1 });

    const store = app.openStore();
    try {
      expect((await store.audit.list({ operation: 'link.create' }))[0]).toMatchObject({
        outcome: 'succeeded',
        inputs: { nftId: 'nft-in-flight' },
      });
    } finally {
      await store.close();
    }
  });

  it('a process stops cleanly on a signal: HTTP mode on SIGTERM, its METRICS_PORT listener with it; Socket Mode on SIGINT', async () => {
    const METRICS_TOKEN = 'metrics-TOKEN-e2e-0123456789abcdef';
    const metricsPort = await freePort();
    // Started side by side: neither touches what the other checks.
    const [http, socket] = await bothStarted([
      startProcess('http', { env: { METRICS_PORT: String(metricsPort), METRICS_TOKEN } }),
      startProcess('socket'),
    ]);
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const agent = new Agent({ keepAlive: true });
    try {
      expect(http.logLines.find((l) => l.msg?.startsWith('mintlink started'))).toMatchObject({ metricsPort });
      // A scraper keeping its connection open does not hold the shutdown.
      expect(await keptAliveGet(agent, metricsPort, METRICS_TOKEN)).toBe(200);
      const [httpExit, socketExit] = await Promise.all([http.stop('SIGTERM'), socket.stop('SIGINT')]);
      expect(httpExit).toBe(0);
      expect(socketExit).toBe(0);
      await expect(fetch(metricsUrl)).rejects.toThrow();
    } finally {
      agent.destroy();
      await Promise.all([http.stop(), socket.stop()]);
    }
    for (const app of [http, socket]) {
      const messages = app.logLines.map((l) => l.msg);
      expect(messages).toContain('shutting down');
      expect(messages.at(-1)).toBe('stopped');
      for (const secret of [fakes.slack.botToken, fakes.slack.appToken, TEST_SIGNING_SECRET, TEST_MINT_API_KEY])
        expect(app.logs).not.toContain(secret);
    }
    expect(http.logs).not.toContain(METRICS_TOKEN);
  });
});
