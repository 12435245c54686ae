import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { seedAuditLog } from '../../kit/audit-seed.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID } from '../../kit/workspaces.js';

const BOB = 'U0APPROV1'; // an approver, so an audit viewer, in both workspaces (the environment's default)

describe('audit log export with many workspaces', () => {
  const fakes = useFakes();
  // A database file, to seed the audit log beside the app (an in-memory one is the app's connection only).
  const db = sqliteDatabase();
  const running = useListenerApp(fakes, {
    env: { ...DISTRIBUTION_ENV, DELETION_APPROVERS: BOB, DATABASE_URL: db.databaseUrl },
  });
  const app = () => running.app;

  it('exports the asker’s workspace only, uploaded with that workspace’s token', async () => {
    await installInProcess(app(), fakes.slack, { teamId: TEST_TEAM_ID, userId: BOB });
    const tokenB = await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: BOB });
    const at = new Date(Date.now() - 60_000).toISOString();
    await seedAuditLog(db.databaseUrl, 6, (i) => ({
      id: `seeded-${i}`,
      at,
      actor_id: BOB,
      team_id: i < 4 ? TEST_TEAM_ID : OTHER_TEAM_ID,
      operation: 'link.create',
      inputs: JSON.stringify({ workspace: i < 4 ? 'A' : 'B', n: i }),
      outcome: 'succeeded',
      detail: null,
    }));

    const { ack } = await app().command('audit 1 link.create', { user_id: BOB, team_id: OTHER_TEAM_ID });
    expect(JSON.stringify(ack)).toContain('Exporting the audit log');
    const upload = await fakes.slack.waitFor(() => fakes.slack.uploadsTo(`D${BOB.slice(1)}`)[0], 15_000, 'the export');
    const rows: string[][] = parse(fakes.slack.uploadedText(upload.fileId));
    const data = rows.slice(1).map((r) => r.join(','));
    expect(data).toHaveLength(2);
    expect(data.every((line) => line.includes('B'))).toBe(true);
    const calls = fakes.slack.callsTo('files.getUploadURLExternal');
    expect(calls.map((c) => c.token)).toEqual([tokenB]);
  });
});

describe('a workspace not set up yet, in distribution mode', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: DISTRIBUTION_ENV });

  it('tells its people that a settings admin sets it up in Slack, never the operator’s environment', async () => {
    await installInProcess(running.app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: BOB });
    running.app.teamId = OTHER_TEAM_ID;
    try {
      const audit = JSON.stringify((await running.app.command('audit', { user_id: BOB })).ack);
      expect(audit).toContain('a settings admin chooses who may export it');
      const deletion = JSON.stringify((await running.app.command('delete', { user_id: BOB })).ack);
      expect(deletion).toContain('a settings admin of this workspace');
      for (const text of [audit, deletion])
        expect(text).not.toMatch(/AUDIT_VIEWERS|DELETION_APPROVERS|APPROVAL_CHANNEL_ID|operator/);
    } finally {
      running.app.teamId = TEST_TEAM_ID;
    }
  });
});
