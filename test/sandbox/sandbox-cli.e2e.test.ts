import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * `npm run sandbox` as a person starts it (node dist/sandbox/sandbox.mjs, what the script runs): the port it
 * needs taken, real-looking tokens in the environment, and Ctrl-C.
 */

const MAIN = new URL('../../dist/sandbox/sandbox.mjs', import.meta.url).pathname;

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
