import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { useFakes } from '../kit/fakes.js';
import { freePort } from '../kit/free-port.js';
import { httpModeEnv, isAlive, NpmStart, portIsFree } from './npm-start.js';

/*
 * A process manager or a container runtime stops the app by signalling the process it started: `npm start`.
 * npm passes SIGTERM and SIGINT on to the one process it spawned for the script, so that process must be the
 * app itself (the start script `exec`s node; a shell left in between would die and orphan the app).
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fakes = useFakes();
const dataDir = mkdtempSync(join(tmpdir(), 'mintlink-signals-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the start script', () => {
  it('only runs the built app: no build step, and node replaces the shell npm runs it with', () => {
    const { scripts } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toMatch(/(^|; )exec node (--[a-z-]+=\d+ )*dist\/mintlink\.mjs$/);
    expect(scripts.prestart).toBeUndefined();
    expect(scripts.poststart).toBeUndefined();
  });
});

describe.each(['SIGTERM', 'SIGINT'] as const)('%s sent to `npm start`', (signal) => {
  it('shuts the app down gracefully, npm exits 0, and nothing is left running', async () => {
    const port = await freePort();
    const npm = new NpmStart(repoRoot, httpModeEnv(fakes, port, join(dataDir, `${signal}.sqlite`)));
    await npm.waitForLog((line) => line.msg?.startsWith('mintlink started') === true);
    const app = npm.appProcess();
    // npm's child is node itself: no `sh -c` in between to swallow the signal.
    expect(app.ppid).toBe(npm.child.pid);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    npm.child.kill(signal);
    const exit = await npm.waitForExit();

    expect(npm.logLines.find((line) => line.msg === 'shutting down')).toMatchObject({ signal });
    expect(npm.logLines.some((line) => line.msg === 'stopped')).toBe(true);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(npm.logs).not.toMatch(/npm error/);
    expect(isAlive(app.pid)).toBe(false);
    expect(await portIsFree(port)).toBe(true);
  });
});
