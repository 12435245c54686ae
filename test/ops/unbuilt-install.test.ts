import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bareEnv, npmRun } from './npm-start.js';

/*
 * The operator's scripts where `npm run build` was never run: package.json alone, no dist/. Apart from the
 * production recipe (production-recipe.e2e.test.ts), which needs dist/ and a pruned install: these need neither,
 * and run on a worker of their own.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('where npm run build was never run', { concurrent: true, timeout: 60_000 }, () => {
  it.each([
    ['start', []],
    ['settings', ['show']],
    ['secrets', ['reseal']],
    ['manifest', []],
    ['mock-api', []],
    ['doctor', []],
  ])('npm run -s %s says so in one line', async (script, args) => {
    const unbuilt = mkdtempSync(join(tmpdir(), 'mintlink-unbuilt-'));
    copyFileSync(join(repoRoot, 'package.json'), join(unbuilt, 'package.json'));
    const result = await npmRun(unbuilt, script, args, bareEnv());
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'dist/ is not built: run npm run build first (after npm ci).\n',
    });
  });
});
