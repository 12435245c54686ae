import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/ops/config/load-config.js';
import { showSettings } from '../../src/operator/show-settings.js';
import { openStore } from '../../src/platform/store/store.js';
import { sqliteDatabase } from '../kit/store-engines.js';

const ENV = {
  SLACK_BOT_TOKEN: 'xoxb-1234-5678-abcdefSECRET',
  SLACK_SIGNING_SECRET: 'signing-secret-9f8e7d6c5b4a',
  MINT_API_BASE_URL: 'http://127.0.0.1:4010',
  MINT_API_KEY: 'mint-key-SECRET-1a2b3c',
  APPROVAL_CHANNEL_ID: 'C0APPROVE',
  DELETION_APPROVERS: 'U0BOB0001,S0GROUP01',
  DELETION_QUORUM: '2',
};

describe('npm run settings -- show', () => {
  it('prints each setting in force and where it comes from: the environment, or who set it in Slack', async () => {
    const db = sqliteDatabase();
    const loaded = loadConfig({ ...ENV, DATABASE_URL: db.databaseUrl });
    if (!loaded.ok) throw new Error(loaded.message);
    const store = openStore(loaded.config.store);
    try {
      await store.migrate();
      const fresh = await showSettings(loaded.config, { used: true, store });
      expect(fresh).toContain('No settings were changed in Slack');
      expect(fresh).toMatch(/the quorum\s+2 approvals\s+\[env default: DELETION_QUORUM/);
      expect(fresh).toMatch(/the deletion approvers\s+U0BOB0001, S0GROUP01 \(user group\)\s+\[env default/);

      const at = '2026-11-20T10:00:00.000Z';
      await store.workspaceSettingsRows.save(
        'T0TEST001',
        0,
        { quorum: { value: { approvals: 3, large: null }, by: 'U0ADMIN01', at } },
        'U0ADMIN01',
      );
      const changed = await showSettings(loaded.config, { used: true, store });
      expect(changed).toContain('Workspace T0TEST001: version 1, last changed by U0ADMIN01');
      expect(changed).toMatch(/the quorum\s+3 approvals\s+\[set in Slack by U0ADMIN01 at 2026-11-20T10:00:00.000Z\]/);
      expect(changed).toMatch(/the approval channel\s+C0APPROVE\s+\[env default: APPROVAL_CHANNEL_ID\]/);

      const envOnly = loadConfig({ ...ENV, DATABASE_URL: db.databaseUrl, SETTINGS_SOURCE: 'env' });
      if (!envOnly.ok) throw new Error(envOnly.message);
      expect(await showSettings(envOnly.config, { used: true, store })).toMatch(
        /SETTINGS_SOURCE=env[\s\S]*the quorum\s+2 approvals/,
      );
    } finally {
      await store.close();
    }
  });

  it('runs as the operator runs it, and prints no secret', async () => {
    const db = sqliteDatabase();
    const store = openStore(db.location);
    await store.migrate(); // as the app does at start
    await store.close();
    const result = spawnSync(process.execPath, ['dist/mintlink.mjs', 'settings', 'show'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { PATH: process.env.PATH, ...ENV, DATABASE_URL: db.databaseUrl },
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('the bulk concurrency');
    for (const secret of [ENV.SLACK_BOT_TOKEN, ENV.SLACK_SIGNING_SECRET, ENV.MINT_API_KEY])
      expect(result.stdout).not.toContain(secret);
  });
});
