import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../kit/free-port.js';

const packageDir = new URL('../../..', import.meta.url).pathname;

/** `npm run mock-api` as a developer runs it (from dist/, which the test run has built). */
function npmRunMockApi(port: number) {
  const child = spawn('npm', ['run', 'mock-api'], {
    cwd: packageDir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MOCK_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function listening(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/__mock/requests`).then(
    () => true,
    () => false,
  );
}

describe('npm run mock-api', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((server) => server.close()));

  it('runs node in place of the shell: SIGTERM to npm stops it and frees the port', async () => {
    const port = await freePort();
    const mock = npmRunMockApi(port);
    const deadline = Date.now() + 15_000;
    while (!mock.output().includes('Mock Mint service on') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(mock.output()).toContain(`Mock Mint service on http://127.0.0.1:${port}`);
    expect(await listening(port)).toBe(true);
    mock.child.kill('SIGTERM');
    expect(await mock.exited).toBe(0);
    // Nothing was left behind holding the port (node was the shell's child, orphaned by the signal).
    expect(await listening(port)).toBe(false);
  });

  it('says in one line that the port is in use, and how to choose another', async () => {
    const port = await freePort();
    const taken = createServer();
    servers.push(taken);
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    const mock = npmRunMockApi(port);
    expect(await mock.exited).toBe(1);
    // The mock's own words: npm's lines (`> mintlink-slack@… mock-api`, `npm error …`) left out.
    const lines = mock
      .output()
      .split('\n')
      .filter((line) => line.trim() && !/^(>|npm )/.test(line));
    expect(lines).toEqual([
      `Port ${port} is in use (another mock service still running?). Stop it, or choose another port: MOCK_PORT=${port + 1} npm run mock-api (and MINT_API_BASE_URL=http://127.0.0.1:${port + 1} for the app).`,
    ]);
  });
});
