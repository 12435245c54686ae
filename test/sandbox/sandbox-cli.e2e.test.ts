import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * `npm run sandbox` as a person starts it (node dist/sandbox/sandbox.mjs, what the script runs): the port it
 * needs taken, real-looking tokens in the environment, and Ctrl-C.
 */

const MAIN = new URL('../../dist/sandbox/sandbox.mjs', import.meta.url).pathname;

/** Sandboxes a failed test left running: stopped as Ctrl-C stops them (their apps with them). */
const started: Array<{ child: ChildProcess; exited: Promise<number | null> }> = [];
afterAll(async () => {
  const left = started.filter(({ child }) => child.exitCode === null && child.signalCode === null);
  for (const { child } of left) child.kill('SIGINT');
  await Promise.all(left.map(({ exited }) => exited));
}, 30_000);

function run(env: Record<string, string>, untilLine?: RegExp) {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', SANDBOX_DATA_DIR: mkdtempSync(join(tmpdir(), 'sandbox-cli-')), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const reached = new Promise<void>((resolve, reject) => {
    if (!untilLine) return resolve();
    const timer = setInterval(() => {
      if (untilLine.test(stdout)) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`exited before ${untilLine}: ${stdout}${stderr}`));
    });
  });
  started.push({ child, exited });
  return { child, exited, reached, output: () => ({ stdout, stderr }) };
}

describe('npm run sandbox', () => {
  let blocker: Server;
  let takenPort: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    takenPort = (blocker.address() as { port: number }).port;
  });
  afterAll(() => blocker.close());

  it('says in one line which port is taken and how to choose another, and exits 1', async () => {
    const sandbox = run({ SANDBOX_PORT: String(takenPort) });
    expect(await sandbox.exited).toBe(1);
    const { stderr } = sandbox.output();
    expect(stderr.trim().split('\n')).toEqual([
      `Port ${takenPort} on 127.0.0.1 is already in use: start the sandbox on another port, e.g. SANDBOX_PORT=${takenPort + 1} npm run sandbox`,
    ]);
  });

  it('refuses a History scan size the app would refuse, in one line, and exits 1 before touching its data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
    const sandbox = run({ SANDBOX_DATA_DIR: dataDir, SANDBOX_HISTORY_SCAN_ROWS: '0' });
    expect(await sandbox.exited).toBe(1);
    expect(sandbox.output().stderr.trim().split('\n')).toEqual([
      'SANDBOX_HISTORY_SCAN_ROWS must be a whole number of rows from 1 to 10000000; it is "0".',
    ]);
    expect(readdirSync(dataDir)).toEqual([]);
    rmSync(dataDir, { recursive: true });
  });

  it('ignores real tokens found in the environment, says so without showing them, serves on 127.0.0.1 and stops on Ctrl-C', async () => {
    const secret = 'xoxb-1234567890-REAL-SECRET-abcdef';
    const sandbox = run(
      {
        SANDBOX_PORT: '0',
        SLACK_BOT_TOKEN: secret,
        MINT_API_KEY: 'real-mint-key-7f3a',
        SLACK_API_URL: 'https://slack.com/api/',
      },
      /ready in \d+ ms: open (http:\/\/127\.0\.0\.1:\d+\/)/,
    );
    await sandbox.reached;
    const { stdout } = sandbox.output();
    expect(stdout).toMatch(/Ignoring MINT_API_KEY, SLACK_API_URL, SLACK_BOT_TOKEN from the environment/);
    expect(stdout).not.toContain(secret);
    expect(stdout).not.toContain('real-mint-key-7f3a');
    const url = /open (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)?.[1] ?? '';
    expect((await fetch(`${url}api/bootstrap`)).status).toBe(200);
    // The page refuses a Host that is not loopback (a rebinding site in a browser).
    expect(await statusWithHost(`${url}api/bootstrap`, 'evil.example')).toBe(403);
    sandbox.child.kill('SIGINT');
    expect(await sandbox.exited).toBe(0);
    await expect(fetch(`${url}api/bootstrap`)).rejects.toThrow();
  }, 30_000);
});

/** The processes whose working directory is `dir` (the sandbox runs its app there), from /proc (Linux). */
function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

describe('npm run sandbox on a directory of other files', () => {
  it('says in one line that it would empty it, exits 1, and leaves every file where it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-foreign-'));
    writeFileSync(join(dir, 'mintlink.sqlite'), 'the production database');
    const sandbox = run({ SANDBOX_DATA_DIR: dir, SANDBOX_PORT: '0' });
    expect(await sandbox.exited).toBe(1);
    const lines = sandbox.output().stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${dir} holds files the sandbox did not make (mintlink.sqlite)`);
    expect(readdirSync(dir)).toEqual(['mintlink.sqlite']);
    expect(readFileSync(join(dir, 'mintlink.sqlite'), 'utf8')).toBe('the production database');
  });
});

describe('Ctrl-C while npm run sandbox starts', () => {
  it('stops everything, the app it already launched included, and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-early-stop-'));
    const sandbox = run({ SANDBOX_PORT: '0', SANDBOX_DATA_DIR: dataDir });
    // The app is launched first, while the rest of the sandbox loads: Ctrl-C as soon as it runs.
    const deadline = Date.now() + 10_000;
    while (processesIn(dataDir).length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const [app] = processesIn(dataDir);
    expect(app).toBeDefined();
    sandbox.child.kill('SIGINT');
    expect(await sandbox.exited).toBe(0);
    await expect.poll(() => processesIn(dataDir), { timeout: 5_000 }).toEqual([]);
    expect(existsSync(join(dataDir, 'sandbox.lock'))).toBe(false);
  }, 30_000);
});

describe('npm run sandbox twice on one data directory', () => {
  const READY = /ready in \d+ ms: open (http:\/\/127\.0\.0\.1:\d+\/)/;

  it('says in one line that a sandbox runs there (its URL), exits 1, and leaves the running one untouched', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-twice-'));
    const first = run({ SANDBOX_PORT: '0', SANDBOX_DATA_DIR: dataDir }, READY);
    try {
      await first.reached;
      const url = READY.exec(first.output().stdout)?.[1] ?? '';
      writeFileSync(join(dataDir, 'still-here'), 'the first sandbox keeps its data');
      const before = readdirSync(dataDir).sort();
      expect(before).toEqual(expect.arrayContaining(['app.log', 'mintlink.sqlite', 'still-here']));

      const second = run({ SANDBOX_PORT: '0', SANDBOX_DATA_DIR: dataDir });
      const timer = setTimeout(() => second.child.kill('SIGINT'), 15_000); // a second sandbox up would be the bug
      expect(await second.exited).toBe(1);
      clearTimeout(timer);
      expect(second.output().stdout).toBe('');
      expect(second.output().stderr.trim().split('\n')).toEqual([
        `A sandbox is already running: open ${url} (pid ${first.child.pid}, data directory ${dataDir}); stop it first (Ctrl-C in its terminal), or start another one with SANDBOX_DATA_DIR set to another directory.`,
      ]);

      // Nothing of the first was touched, and it still works: its app answers a command from its page.
      expect(readdirSync(dataDir).sort()).toEqual(before);
      expect(readFileSync(join(dataDir, 'still-here'), 'utf8')).toBe('the first sandbox keeps its data');
      const answer = await fetch(`${url}api/act`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sandbox': '1' },
        body: JSON.stringify({ type: 'message', as: 'U0ALICE01', channel: 'C0CHANNEL1', text: '/mintlink help' }),
      });
      expect(await answer.json()).toMatchObject({ ok: true, ackMs: expect.any(Number) });
    } finally {
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
    }
    // Stopped, it leaves no lock behind: the next start is free to go.
    expect(existsSync(join(dataDir, 'sandbox.lock'))).toBe(false);
  }, 40_000);

  // One start, on the lock of a killed sandbox: the lock's other rules (a pid now another process's, a holder
  // still running) are data-dir-lock.test.ts's, in the test's process.
  it('takes over a lock left by a sandbox that is gone (killed), and notes its own pid and URL in it', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('exit', resolve));
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-stale-'));
    writeFileSync(join(dataDir, 'sandbox.lock'), JSON.stringify({ pid: gone.pid, url: 'http://127.0.0.1:1/' }));
    const sandbox = run({ SANDBOX_PORT: '0', SANDBOX_DATA_DIR: dataDir }, READY);
    await sandbox.reached;
    const url = READY.exec(sandbox.output().stdout)?.[1];
    expect(JSON.parse(readFileSync(join(dataDir, 'sandbox.lock'), 'utf8'))).toMatchObject({
      pid: sandbox.child.pid,
      url,
    });
    sandbox.child.kill('SIGINT');
    expect(await sandbox.exited).toBe(0);
  }, 40_000);
});

/** fetch() cannot set Host: a plain request can, as a page of another site reached by rebinding would. */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}
