import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testSchemaPrefix } from './kit/store-engines.js';

/**
 * Before the run: give it a temporary directory and a schema prefix of its own. After it: remove both, so a run
 * leaves nothing behind, whatever its tests forgot or a failure cut short. The workers and the app processes
 * they start inherit TMPDIR, so every temporary file lands in the run's directory. Both projects of
 * test/vitest.config.ts name this file; when a run has files of both, the second call finds the run's directory
 * made already (this process made it) and leaves it to the first.
 */
export default function setup(): () => Promise<void> {
  if (process.env.MINTLINK_TEST_RUN_PID === String(process.pid)) return () => Promise.resolve();
  const runDir = mkdtempSync(join(tmpdir(), 'mintlink-test-run-'));
  chmodSync(runDir, 0o755); // tests acting as another user (user nobody) must reach their folders inside
  const run = randomBytes(4).toString('hex');
  process.env.TMPDIR = runDir;
  process.env.MINTLINK_TEST_RUN = run;
  process.env.MINTLINK_TEST_RUN_PID = String(process.pid);
  return async () => {
    rmSync(runDir, { recursive: true, force: true });
    await dropSchemas(testSchemaPrefix(run));
  };
}

async function dropSchemas(prefix: string): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'select schema_name as name from information_schema.schemata where starts_with(schema_name, $1)',
      [prefix],
    );
    for (const { name } of rows) await client.query(`drop schema if exists "${name}" cascade`);
  } finally {
    await client.end();
  }
}
