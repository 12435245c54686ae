import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { launchApp, planApp } from '../../sandbox/src/app-child.js';
import { GENERAL } from '../../sandbox/src/people.js';
import { startSandbox } from '../../sandbox/src/sandbox.js';

/*
 * The sandbox picks the app's port, and the app listens on it only once it has started (a second or more later):
 * another process given that port meanwhile must not stop the sandbox. The stand-in's and the mock's ports are
 * held until they listen; the app's, taken here as another process would take it, is replaced.
 */

it('launches the app again on another port when its own was taken before the app listened', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-ports-'));
  const plan = await planApp(dataDir);
  const taken = plan.appPort;
  plan.held.app.release();
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(taken, '127.0.0.1', resolve));
  try {
    // Launched at once, as `npm run sandbox` launches it (main.ts), on the port now taken.
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', dataDir }, { plan, launch: launchApp(plan) });
    try {
      expect(sandbox.appPort).not.toBe(taken);
      // Whoever opens app.log after the failed start's fatal line reads what the sandbox did about it.
      expect(readFileSync(join(dataDir, 'app.log'), 'utf8')).toContain(
        `the app's port ${taken} was taken by another program; starting the app again on ${sandbox.appPort}`,
      );
      // The page's requests reach the app where it runs now.
      const answer = await fetch(`${sandbox.url}api/act`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sandbox': '1' },
        body: JSON.stringify({ type: 'message', as: 'U0ALICE01', channel: GENERAL.id, text: '/mintlink help' }),
      });
      expect(await answer.json()).toMatchObject({ ok: true });
    } finally {
      await sandbox.stop();
    }
  } finally {
    other.close();
  }
});
