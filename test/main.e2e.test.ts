import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from './kit/app-process.js';
import { useFakes } from './kit/fakes.js';

const fakes = useFakes();
const start = fakes.startApp;

describe('start-up', () => {
  it('prints one message listing every configuration problem, exits 1, and shows no secret', async () => {
    const app = await start('http', {
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
    const app = await start('http', {
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

  it.each(['http', 'socket'] as const)(
    'stops with a clear message when Slack rejects the bot token (%s mode)',
    async (mode) => {
      const app = await start(mode, { expectExit: true, env: { SLACK_BOT_TOKEN: 'xoxb-revoked-token-000000' } });
      expect(await app.exitCode).toBe(1);
      expect(app.logs).toContain('Slack rejected SLACK_BOT_TOKEN (invalid_auth)');
      expect(app.logs).not.toContain('xoxb-revoked-token-000000');
    },
  );

  it('stops with a clear message when Slack rejects the app token (Socket Mode)', async () => {
    const app = await start('socket', { expectExit: true, env: { SLACK_APP_TOKEN: 'xapp-1-revoked-000000' } });
    expect(await app.exitCode).toBe(1);
    expect(app.logs).toContain('Slack rejected SLACK_APP_TOKEN (invalid_auth)');
    expect(app.logs).not.toContain('xapp-1-revoked-000000');
  });

  it('stops with a clear message when its HTTP port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const app = await start('http', { expectExit: true, env: { PORT: String(port) } });
      expect(await app.exitCode).toBe(1);
      expect(app.logs).toContain(`Could not listen on port ${port}`);
    } finally {
      blocker.close();
    }
  });

  it.each(['http', 'socket'] as const)(
    'serves health but not readiness while the database is unreachable (%s mode)',
    async (mode) => {
      const app = await start(mode, { env: { DATABASE_URL: 'postgres://postgres:db-PASSWORD-9@127.0.0.1:1/test' } });
      try {
        expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
        const ready = await fetch(`${app.baseUrl}/readyz`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toEqual({ status: 'not ready', reason: 'database unreachable: ECONNREFUSED' });
        expect((await app.command('help')).ack?.response_type).toBe('ephemeral');
        expect(app.logs).not.toContain('db-PASSWORD-9');
      } finally {
        await app.stop();
      }
    },
  );
});

describe('Socket Mode connection', () => {
  it('reconnects when Slack asks it to (as Slack does every few hours) and keeps answering', async () => {
    const app = await start('socket');
    try {
      const socket = fakes.slack.socketMode;
      const opened = socket.opened;
      socket.requestRefresh();
      await fakes.slack.waitFor(
        () => socket.opened > opened && socket.connectionCount === 1,
        10_000,
        'the new connection, and the old one closed',
      );
      expect((await app.command('help')).ack?.response_type).toBe('ephemeral');
    } finally {
      await app.stop();
    }
  });
});

describe('shutdown', () => {
  it.each(['http', 'socket'] as const)('lets work in flight finish before exiting (%s mode)', async (mode) => {
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

  it.each([
    ['http', 'SIGTERM'],
    ['socket', 'SIGINT'],
  ] as const)('%s mode stops cleanly on %s', async (mode, signal) => {
    const app = await start(mode);
    expect(await app.stop(signal)).toBe(0);
    const messages = app.logLines.map((l) => l.msg);
    expect(messages).toContain('shutting down');
    expect(messages.at(-1)).toBe('stopped');
    for (const secret of [fakes.slack.botToken, fakes.slack.appToken, TEST_SIGNING_SECRET, TEST_MINT_API_KEY])
      expect(app.logs).not.toContain(secret);
  });
});
