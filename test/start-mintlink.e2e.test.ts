import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Fakes, useFakes } from './kit/fakes.js';
import { freePort } from './kit/free-port.js';
import { keptAliveGet, type RunningApp } from './kit/running-app.js';
import { TEST_DATABASE_URL } from './kit/store-engines.js';

/*
 * What start-mintlink.ts decides (a start refused by Slack, a port or a database, readiness, /metrics, Socket
 * Mode), on the app started in the test's own process as main() starts it. What only a process shows (main()'s
 * refusal of a configuration, .env, signals, exit codes) is in main.e2e.test.ts.
 */
const fakes = useFakes();
const startApp: Fakes['startApp'] = (mode, options) => fakes.startApp(mode, options);

describe('start-up', () => {
  it('stops with a clear message when Slack rejects the app token (Socket Mode)', async () => {
    const app = await startApp('socket', { expectExit: true, env: { SLACK_APP_TOKEN: 'xapp-1-revoked-000000' } });
    expect(await app.exitCode).toBe(1);
    expect(app.logs).toContain('Slack rejected SLACK_APP_TOKEN (invalid_auth)');
    expect(app.logs).not.toContain('xapp-1-revoked-000000');
  });

  it('stops with a clear message when its HTTP port is taken', async () => {
    await withPortTaken('127.0.0.1', async (port) => {
      const app = await startApp('http', { expectExit: true, env: { PORT: String(port) } });
      expect(await app.exitCode).toBe(1);
      expect(app.logs).toContain(`Could not listen on port ${port}`);
    });
  });

  it.each(['http', 'socket'] as const)(
    'serves health but not readiness while the database is unreachable (%s mode)',
    async (mode) => {
      const app = await startApp(mode, { env: { DATABASE_URL: 'postgres://postgres:db-PASSWORD-9@127.0.0.1:1/test' } });
      try {
        expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
        const ready = await fetch(`${app.baseUrl}/readyz`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toEqual({
          status: 'not ready',
          reason: 'database unreachable: nothing listens at 127.0.0.1:1 (ECONNREFUSED)',
        });
        expect((await app.command('help')).ack?.response_type).toBe('ephemeral');
        expect(app.logs).not.toContain('db-PASSWORD-9');
      } finally {
        await app.stop();
      }
    },
  );
});

/** A temporary directory that other users may look into (the permission cases run as another user). */
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mintlink-e2e-db-'));
  chmodSync(dir, 0o755);
  return dir;
};

/** The one line the app wrote before exiting 1, and that it wrote no stack trace. */
const fatalLine = (app: RunningApp) => {
  const fatal = app.logLines.filter((line) => line.level === 'fatal');
  expect(fatal).toHaveLength(1);
  expect(app.logs).not.toMatch(/^\s+at /m);
  expect(app.logs).not.toContain('SqliteError');
  return fatal[0]?.msg;
};

describe('an SQLite path that cannot be used (DATABASE_URL=file:...)', () => {
  // These do not fix themselves: the app stops at start with one line naming DATABASE_URL, the path and why.
  it.each([
    ['a directory', () => tempDir(), (path: string) => `DATABASE_URL points to ${path}, which is a directory.`],
    [
      'a path under a file',
      () => {
        const file = join(tempDir(), 'a-file');
        writeFileSync(file, 'x');
        return join(file, 'data', 'db.sqlite');
      },
      (path: string) =>
        `DATABASE_URL points to ${path}, which is under ${path.replace('/data/db.sqlite', '')}, which is a file, not a directory.`,
    ],
    [
      'a file that is not a database',
      () => {
        const path = join(tempDir(), 'notes.sqlite');
        writeFileSync(path, 'Shopping list: milk, eggs, bread. '.repeat(30));
        return path;
      },
      (path: string) => `DATABASE_URL points to ${path}, which is not an SQLite database.`,
    ],
  ])('%s: exits 1 with one line saying why', async (_case, makePath, expected) => {
    const path = makePath();
    const app = await startApp('http', { expectExit: true, env: { DATABASE_URL: `file:${path}` } });
    expect(await app.exitCode).toBe(1);
    expect(fatalLine(app)).toMatch(new RegExp(`^${escape(expected(path))} Hint: postgres://`));
  });

  // Root reads and writes files whatever their permissions say, and the app runs as the tests' user: these
  // cases are covered as user "nobody" in test/platform/store/store.test.ts, and here when the tests do not run as root.
  const root = process.getuid?.() === 0;
  it.skipIf(root)('a read-only file: exits 1 (skipped as root: root may write any file)', async () => {
    const path = join(tempDir(), 'db.sqlite');
    writeFileSync(path, '');
    chmodSync(path, 0o444);
    const app = await startApp('http', { expectExit: true, env: { DATABASE_URL: `file:${path}` } });
    expect(await app.exitCode).toBe(1);
    expect(fatalLine(app)).toContain(`DATABASE_URL points to ${path}, which cannot be written (read-only`);
  });

  it.skipIf(root)('a directory without permission: exits 1 (skipped as root: root may enter any)', async () => {
    const closed = join(tempDir(), 'closed');
    mkdirSync(closed, { mode: 0o000 });
    const path = join(closed, 'db.sqlite');
    const app = await startApp('http', { expectExit: true, env: { DATABASE_URL: `file:${path}` } });
    expect(await app.exitCode).toBe(1);
    expect(fatalLine(app)).toContain(`DATABASE_URL points to ${path}, which cannot be reached (permission denied`);
  });
});

describe.runIf(TEST_DATABASE_URL)('PostgreSQL refusing the connection (real server)', () => {
  const withPath = (user: string, database: string) => {
    const url = new URL(TEST_DATABASE_URL ?? '');
    url.username = user;
    url.password = 'pg-PASSWORD-never-shown'; // the test server trusts local connections: ignored
    url.pathname = `/${database}`;
    return { url: url.toString(), at: `${url.hostname}:${url.port || 5432}` };
  };

  it.each([
    [
      'a database that does not exist',
      'postgres',
      'no_such_db_xyz',
      'database "no_such_db_xyz" does not exist on AT (3D000)',
    ],
    [
      'a user that does not exist',
      'no_such_user_xyz',
      'test',
      'user "no_such_user_xyz" may not connect to database "test" (28000: role "no_such_user_xyz" does not exist)',
    ],
  ])('%s: starts, and /readyz and the logs say what is wrong', async (_case, user, database, reason) => {
    const { url, at } = withPath(user, database);
    const expected = reason.replace('AT', at);
    const app = await startApp('http', { env: { DATABASE_URL: url } });
    try {
      const ready = await fetch(`${app.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'not ready', reason: `database unreachable: ${expected}` });
      expect(app.logLines.some((line) => line.msg === `database not ready: ${expected}`)).toBe(true);
      expect(app.logs).not.toContain('pg-PASSWORD-never-shown');
      // Expected failures are one line with their code, no stack: the start's and the background work's.
      await app.waitForLog((line) => line.level === 'warn' && line.err !== undefined);
      const failures = app.logLines.filter((line) => line.err !== undefined);
      expect(failures.length).toBeGreaterThanOrEqual(2);
      for (const line of failures)
        expect(line.err).toEqual({
          type: expect.any(String),
          message: expect.any(String),
          code: expect.stringMatching(/^(3D000|28000)$/),
        });
    } finally {
      await app.stop();
    }
  });
});

describe('/metrics access', () => {
  const TOKEN = 'metrics-TOKEN-e2e-0123456789abcdef';

  it.each(['http', 'socket'] as const)('METRICS_TOKEN: 401 without it or with a wrong one (%s mode)', async (mode) => {
    const app = await startApp(mode, { env: { METRICS_TOKEN: TOKEN } });
    try {
      const none = await fetch(`${app.baseUrl}/metrics`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const wrong = await fetch(`${app.baseUrl}/metrics`, {
        headers: { authorization: 'Bearer not-the-token-0123456789' },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      const right = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(right.status).toBe(200);
      expect(right.headers.get('content-type')).toContain('text/plain');
      expect(await right.text()).toMatch(/^mintlink_work_in_flight 0$/m);
      expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200); // health needs no token
      expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
      await app.waitForIdle(); // the test kit sends the token
    } finally {
      expect(await app.stop()).toBe(0);
    }
    expect(app.logs).not.toContain(TOKEN);
  });

  // The process's own stop on SIGTERM with METRICS_PORT: 'a process stops cleanly on a signal' below.
  it.each(['http', 'socket'] as const)(
    'METRICS_PORT: /metrics only there, health on PORT; the listener closes on SIGTERM (%s mode)',
    async (mode) => {
      const metricsPort = await freePort();
      const app = await startApp(mode, { env: { METRICS_PORT: String(metricsPort), METRICS_TOKEN: TOKEN } });
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      const agent = new Agent({ keepAlive: true });
      try {
        expect((await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
          404,
        );
        expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
        expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
        expect((await fetch(metricsUrl)).status).toBe(401);
        const metrics = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('# TYPE mintlink_work_in_flight gauge');
        expect((await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status).toBe(404);
        await app.waitForIdle(); // the test kit reads METRICS_PORT

        // A scraper keeping its connection open does not hold the shutdown.
        expect(await keptAliveGet(agent, metricsPort, TOKEN)).toBe(200);
        expect(await app.stop('SIGTERM')).toBe(0);
        await expect(fetch(metricsUrl)).rejects.toThrow();
      } finally {
        agent.destroy();
        await app.stop();
      }
      expect(app.logs).not.toContain(TOKEN);
    },
  );

  it('METRICS_PORT taken: exits 1 with a clear message', async () => {
    await withPortTaken('0.0.0.0', async (port) => {
      const app = await startApp('http', { expectExit: true, env: { METRICS_PORT: String(port) } });
      expect(await app.exitCode).toBe(1);
      expect(app.logs).toContain(`Could not listen on METRICS_PORT at 0.0.0.0:${port}`);
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('Socket Mode connection', () => {
  it(
    'reconnects when Slack asks it to (as Slack does every few hours) and keeps answering',
    { timeout: 20_000 },
    async () => {
      const app = await startApp('socket');
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
    },
  );
});

/** Runs `use` while another server holds a free port of `host`: the app must find it taken. */
async function withPortTaken(host: string, use: (port: number) => Promise<void>): Promise<void> {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, host, resolve));
  const address = blocker.address();
  try {
    if (address === null || typeof address === 'string') throw new Error('the blocking server has no port');
    await use(address.port);
  } finally {
    blocker.close();
  }
}
