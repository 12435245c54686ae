import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { useFakes } from '../kit/fakes.js';
import { freePort } from '../kit/free-port.js';
import { httpModeEnv, isAlive, NpmStart, portIsFree, signedHelpCommand } from './npm-start.js';

/*
 * The production recipe of docs/operating.md, in a directory of its own: what a build stage holds after
 * `npm ci && npm run build` (package.json, package-lock.json, node_modules, dist/) is pruned to the production
 * dependencies with `npm prune --omit=dev`, and `npm start` runs the app from there: no TypeScript, esbuild or
 * any other dev tool is left, so the start cannot build anything.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const fakes = useFakes();
const dir = mkdtempSync(join(tmpdir(), 'mintlink-production-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('production recipe: build, prune to production dependencies, start', () => {
  it(
    'starts with production dependencies only, serves, and stops cleanly on SIGTERM',
    {
      timeout: 90_000,
    },
    async () => {
      for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(repoRoot, file), join(dir, file));
      cpSync(join(repoRoot, 'dist'), join(dir, 'dist'), { recursive: true });
      // A real copy: npm rewrites files of node_modules in place (its .package-lock.json), never the repository's.
      await run('cp', ['-R', join(repoRoot, 'node_modules'), join(dir, 'node_modules')]);

      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false' };
      const prune = await run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dir, env });
      // The install scripts that must run (better-sqlite3's native build) are declared in package.json.
      expect(prune.stderr).not.toMatch(/not yet covered by allowScripts/);
      for (const devTool of ['typescript', 'esbuild', 'tsx', 'vitest', '.bin/tsc', '.bin/esbuild'])
        expect(existsSync(join(dir, 'node_modules', devTool)), devTool).toBe(false);
      expect(existsSync(join(dir, 'node_modules', 'better-sqlite3'))).toBe(true);

      const port = await freePort();
      const npm = new NpmStart(dir, httpModeEnv(fakes, port, join(dir, 'data', 'mintlink.sqlite')));
      await npm.waitForLog((line) => line.msg?.startsWith('mintlink started') === true);
      expect(npm.logs).not.toMatch(/tsc|esbuild|not found/);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const help = await signedHelpCommand(fakes, port);
      expect(help.status).toBe(200);
      expect(help.ack).toMatchObject({ response_type: 'ephemeral' });

      const app = npm.appProcess();
      npm.child.kill('SIGTERM');
      expect(await npm.waitForExit()).toEqual({ code: 0, signal: null });
      expect(npm.logLines.find((line) => line.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
      expect(npm.logLines.some((line) => line.msg === 'stopped')).toBe(true);
      expect(isAlive(app.pid)).toBe(false);
      expect(await portIsFree(port)).toBe(true);
    },
  );
});
