import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { useFakes } from '../kit/fakes.js';
import { freePort } from '../kit/free-port.js';
import { httpModeEnv, NpmStart } from './npm-start.js';

/*
 * `npm run -s doctor` on the production install of docs/operating.md: the build stage's files pruned to the
 * production dependencies (`npm prune --omit=dev`), so nothing but the built artifact can run.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const fakes = useFakes();
const dir = mkdtempSync(join(tmpdir(), 'mintlink-production-doctor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run -s doctor` in the pruned install: its exit code and what it printed. */
async function doctor(env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '-s', 'doctor'], { cwd: dir, env, timeout: 60_000 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(failed.code ?? -1), out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('npm run doctor on the production install', () => {
  it('runs from the built artifact with production dependencies only', { timeout: 120_000 }, async () => {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(repoRoot, file), join(dir, file));
    cpSync(join(repoRoot, 'dist'), join(dir, 'dist'), { recursive: true });
    await run('cp', ['-R', join(repoRoot, 'node_modules'), join(dir, 'node_modules')]);
    const npmEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false' };
    await run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dir, env: npmEnv });
    expect(existsSync(join(dir, 'node_modules', 'tsx'))).toBe(false);

    const database = join(dir, 'data', 'mintlink.sqlite');
    const env = {
      ...httpModeEnv(fakes, await freePort(), database),
      APPROVAL_CHANNEL_ID: 'C0APPROVE1',
      DELETION_APPROVERS: 'U0BOB0001,U0CAROL01',
    };
    const before = await doctor(env);
    expect(before.out).not.toMatch(/not found|Error:|\n\s+at /);
    expect(before.out).toContain(`✗ Database: ${database} does not exist`);
    expect(before.code).toBe(1);

    // The app run once creates and migrates its database; then nothing blocks.
    const npm = new NpmStart(dir, env);
    await npm.waitForLog((line) => line.msg?.startsWith('mintlink started') === true);
    npm.child.kill('SIGTERM');
    expect(await npm.waitForExit()).toEqual({ code: 0, signal: null });
    const after = await doctor(env);
    expect(after.out).toContain(': reachable, and every migration is applied');
    expect(after.out).toContain('Nothing blocks the setup.');
    expect(after.code).toBe(0);
  });
});
