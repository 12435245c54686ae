import { forgedHome } from '../../kit/settings-flow.js';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_CSV_COLUMNS } from '../../../src/capabilities/audit-export/audit-csv.js';
import { EXPORT_BLOCKS } from '../../../src/capabilities/audit-export/export-form.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { seedAuditLog } from '../../kit/audit-seed.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { describeEachEngine, migrated, type TestDatabase } from '../../kit/store-engines.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import { asText } from '../../../sandbox/src/as-text.js';
import { AUDIT_EXPORT } from '../../../src/capabilities/audit-export/actions.js';

const APPROVAL = 'C0APPROVE';
const ALICE = 'U0ALICE01'; // asks for deletions; not a viewer
const BOB = 'U0APPROV1'; // approver by id, so an audit viewer by default
const CAROL = 'U0CAROL03'; // approver through the group, so a viewer too
const GROUP = 'S0GROUP01';
const ENV = { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: `${BOB},${GROUP}`, DELETION_QUORUM: '2' };
const DAY = 86_400_000;

const dm = (user: string) => `D${user.slice(1)}`;

describeEachEngine('audit log export', (_engine, create) => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let db: TestDatabase;
  let app: ListenerApp;
  const extraApps: ListenerApp[] = [];

  beforeAll(async () => {
    fakes.slack.userGroups.set(GROUP, [CAROL]);
    db = await create();
    // Migrated as the kit does it (a copy, one script): the app's own migrator then finds nothing to do.
    await migrated(db);
    app = await fakes.startListenerApp({ env: { ...ENV, DATABASE_URL: db.databaseUrl } });
  });
  afterAll(async () => {
    expectNoSecretsLeaked(fakes.slack, app);
    await app?.stop();
    await db?.drop();
  });
  afterEach(async () => {
    expectNoRejectedSlackCalls(fakes.slack);
    for (const extra of extraApps.splice(0)) await extra.stop();
  });

  /** Resolves with the rows of the next CSV the app completes into `user`'s DM (header first), and the upload. */
  async function nextExport(user: string, before = fakes.slack.uploadsTo(dm(user)).length) {
    const upload = await fakes.slack.waitFor(
      () => fakes.slack.uploadsTo(dm(user))[before],
      15_000,
      `an export in the DM of ${user}`,
    );
    const rows: string[][] = parse(fakes.slack.uploadedText(upload.fileId));
    // The file follows an introduction posted to the user (which names their DM): the last one before it.
    const intro = fakes.slack.callsTo('chat.postMessage').findLast((c) => c.params.channel === user);
    return { upload, header: rows[0], rows: rows.slice(1), intro: asText(intro?.params.text) };
  }

  async function exportsInAudit() {
    const store = app.openStore();
    try {
      return (await store.audit.list({ operation: 'audit.export', limit: 100 })).reverse();
    } finally {
      await store.close();
    }
  }

  it('refuses anyone who is not an audit viewer, from the command and from Home, and exports nothing', async () => {
    const { ack } = await app.command('audit', { user_id: ALICE });
    expect(ack).toMatchObject({
      response_type: 'ephemeral',
      text: `:no_entry: Only the audit viewers (<@${BOB}>, <!subteam^${GROUP}>) can export the audit log. Nothing was exported.`,
    });
    await app.event({ type: 'app_home_opened', user: ALICE, channel: dm(ALICE), tab: 'home' });
    await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === ALICE);
    const home = fakes.slack.view(ALICE);
    // Her Home does not offer the export; a click that comes anyway (a Home from before she lost the right) is refused.
    expect(textOf(home)).not.toContain('Export audit log');
    await app.clickOnHome(
      forgedHome(AUDIT_EXPORT.buttons.exportFromHome.actionId),
      AUDIT_EXPORT.buttons.exportFromHome.actionId,
      ALICE,
    );
    await fakes.slack.waitForCall('views.open');
    expect(textOf(fakes.slack.lastOpenedView())).toContain('Only the audit viewers');
    await app.waitForIdle();
    expect(fakes.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
    expect(await exportsInAudit()).toEqual([]);
  });

  it('answers arguments it cannot read, specifically, and exports nothing', async () => {
    const answers = {
      'audit 0': 'The number of days must be a whole number from 1 to 3650; "0" is not.',
      'audit 30 40': 'Give the number of days once.',
      'audit @ana': '"@ana" cannot be read as a person here: give their member ID',
      'audit <script>': '"&lt;script&gt;" is not an operation name',
      'audit link.create wallet.create': 'Give at most one operation.',
    };
    for (const [text, answer] of Object.entries(answers)) {
      const { ack } = await app.command(text, { user_id: BOB });
      expect(String(ack?.text)).toContain(answer);
      expect(String(ack?.text)).toContain('Usage: `/mintlink audit [days] [operation] [@user]`');
    }
    await app.waitForIdle();
    expect(fakes.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
  });

  it('exports who, when, operation, inputs, outcome and approvers as CSV to the asker, and records the export', async () => {
    const done = await flow.request(app, ['cus_x1', 'cus_x2'], ALICE, 'Erasure ticket 7');
    await flow.approve(app, done.ts, BOB);
    await flow.approve(app, done.ts, CAROL);
    await flow.waitForStatus(done.ts, '*Deleted* 2 customers');
    const rejected = await flow.request(app, ['cus_y1'], ALICE);
    const reject = await flow.openDecision(app, rejected.ts, 'reject', BOB);
    await app.submitView(reject, { reject_reason: "=cmd|' /C calc'!A0" }, BOB); // a formula, as a reason
    await flow.waitForStatus(rejected.ts, '*Rejected*');

    const { ack } = await app.command('audit', { user_id: CAROL });
    expect(ack?.text).toContain('Exporting the audit log (the last 30 days)');
    const { upload, header, rows, intro } = await nextExport(CAROL);
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    expect(upload).toMatchObject({
      filename: expect.stringMatching(/^mintlink-audit-\d{4}-\d\d-\d\d-last-30-days\.csv$/),
    });
    expect(intro).toContain(`*${rows.length} entries*, the last 30 days`);
    const col = (name: (typeof AUDIT_CSV_COLUMNS)[number]) => AUDIT_CSV_COLUMNS.indexOf(name);
    const about = (id: string) => rows.filter((r) => r[col('inputs')]?.includes(id));

    const deletion = about(done.id).map((r) => [r[col('operation')], r[col('who')], r[col('outcome')]]);
    expect(deletion).toEqual([
      ['customers.delete.request', ALICE, 'done'], // the asking's entry ends as the request did
      ['customers.delete.approve', BOB, 'approval 1 of 2'],
      ['customers.delete.approve', CAROL, 'approved'],
      ['customers.delete.run', CAROL, 'succeeded'],
    ]);
    expect(about(done.id).map((r) => r[col('origin')])).toEqual(['slack', 'slack', 'slack', 'slack']);
    const request = about(done.id)[0]!;
    // With the policy it was opened under: the quorum and the expiry in force then.
    expect(request[col('inputs')]).toMatch(
      new RegExp(
        `^requestId=${done.id}; customerIds=\\[2\\] cus_x1 cus_x2; duplicatesRemoved=0; reason=Erasure ticket 7; approvalsNeeded=2; expiresAt=\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`,
      ),
    );
    expect(request[col('team')]).toBe('T0TEST001');
    expect(request[col('when')]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const approvers = request[col('approvers')]!.split('; ');
    expect(approvers.map((a) => a.split(' ')[0])).toEqual([BOB, CAROL]);
    expect(approvers.every((a) => /^U\w+ \d{4}-\d\d-\d\dT[\d:.]+Z$/.test(a))).toBe(true);
    for (const r of about(done.id)) expect(r[col('approvers')]).toBe(request[col('approvers')]);
    // What a spreadsheet would run is written as text.
    const rejection = about(rejected.id).find((r) => r[col('operation')] === 'customers.delete.reject');
    expect(rejection?.[col('detail')]).toBe("'=cmd|' /C calc'!A0");
    expect(rows.map((r) => r[col('when')])).toEqual(rows.map((r) => r[col('when')]).sort()); // oldest first

    await app.waitForIdle(); // the export's audit entry is settled after the file is shared
    const recorded = await exportsInAudit();
    expect(recorded.map((e) => [e.actorId, e.outcome, e.detail])).toEqual([
      [CAROL, 'succeeded', `${rows.length} entries`],
    ]);
  });

  it('keeps to the days, the operation and the person asked for, and says when nothing matches', async () => {
    const before = fakes.slack.uploadsTo(dm(BOB)).length;
    await app.command(`audit 7 customers.delete.approve <@${BOB}|bob>`, { user_id: BOB });
    const { rows, intro } = await nextExport(BOB, before);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r[4] === 'customers.delete.approve' && r[1] === BOB)).toBe(true);
    expect(intro).toContain(`operation \`customers.delete.approve\`, actions of <@${BOB}>`);

    await app.command('audit 1 wallet.create', { user_id: BOB });
    const note = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === BOB && textOf(c.params.blocks).includes('No audit entries match'),
    );
    expect(textOf(note.params.blocks)).toContain('the last 1 day, operation `wallet.create`');
    await app.waitForIdle();
    expect(fakes.slack.uploadsTo(dm(BOB))).toHaveLength(before + 1);
  });

  it('exports from the Home form, checking its entries inline', async () => {
    await app.event({ type: 'app_home_opened', user: CAROL, channel: dm(CAROL), tab: 'home' });
    await fakes.slack.waitForCall('views.publish', (c) => c.params.user_id === CAROL);
    await app.clickOnHome(fakes.slack.view(CAROL), AUDIT_EXPORT.buttons.exportFromHome.actionId, CAROL);
    await fakes.slack.waitForCall('views.open', (c) => textOf(c.params.view).includes('audit_export_form'));
    const form = fakes.slack.lastOpenedView();
    expect(
      await app.submitView(form, { [EXPORT_BLOCKS.days]: '0', [EXPORT_BLOCKS.operation]: 'no such!' }, CAROL),
    ).toEqual({
      response_action: 'errors',
      errors: {
        [EXPORT_BLOCKS.days]: 'The number of days must be a whole number from 1 to 3650; "0" is not.',
        [EXPORT_BLOCKS.operation]: expect.stringContaining('"no such!" is not an operation name'),
      },
    });
    const before = fakes.slack.uploadsTo(dm(CAROL)).length;
    const ack = await app.submitView(
      form,
      { [EXPORT_BLOCKS.days]: '30', [EXPORT_BLOCKS.operation]: 'customers.delete', [EXPORT_BLOCKS.user]: BOB },
      CAROL,
    );
    expect(textOf(ack)).toContain('Exporting the audit log (the last 30 days, operation `customers.delete`');
    const { rows } = await nextExport(CAROL, before);
    expect(rows.map((r) => r[4]).sort()).toEqual(['customers.delete.approve', 'customers.delete.reject']);
    expect(rows.every((r) => r[1] === BOB)).toBe(true);
  });

  it('lets AUDIT_VIEWERS replace the approvers as the people who may export', async () => {
    const auditor = 'U0AUDIT01';
    // A database of its own, with an entry to export: a second store of this process opening the suite's SQLite
    // file while the first app is in a transaction would wait out the busy timeout (5 s) for nothing.
    const own = await create();
    await migrated(own);
    await seedAuditLog(own.databaseUrl, 1, () => ({
      id: 'seed-viewers',
      at: new Date().toISOString(),
      actor_id: ALICE,
      team_id: TEST_TEAM_ID,
      operation: 'link.create',
      inputs: '{}',
      outcome: 'succeeded',
      detail: null,
    }));
    const other = await fakes.startListenerApp({
      env: { ...ENV, DATABASE_URL: own.databaseUrl, AUDIT_VIEWERS: auditor },
    });
    extraApps.push(other);
    expect((await other.command('audit', { user_id: BOB })).ack?.text).toContain(
      `Only the audit viewers (<@${auditor}>) can export the audit log`,
    );
    await other.command('audit 2', { user_id: auditor });
    expect((await nextExport(auditor)).rows.length).toBeGreaterThan(0);
  });

  it('prunes entries older than AUDIT_RETENTION_DAYS at start, in batches, and records that it did', async () => {
    const now = Date.now();
    await seedAuditLog(db.databaseUrl, 2_510, (i) => ({
      id: `seed-retention-${String(i).padStart(5, '0')}`,
      at: new Date(now - (i < 2_500 ? 60 : 20) * DAY).toISOString(),
      actor_id: ALICE,
      team_id: null,
      operation: i < 2_500 ? 'seed.old' : 'seed.recent',
      inputs: '{}',
      outcome: 'succeeded',
      detail: null,
    }));
    const pruning = await fakes.startListenerApp({
      env: { ...ENV, DATABASE_URL: db.databaseUrl, AUDIT_RETENTION_DAYS: '30' },
    });
    extraApps.push(pruning);
    await pruning.waitForLog((l) => l.msg === 'audit log pruned', 10_000);
    expect(pruning.logLines.find((l) => l.msg === 'audit log pruned')).toMatchObject({ pruned: 2_500, batches: 3 });
    const store = pruning.openStore();
    try {
      expect(await store.audit.list({ operation: 'seed.old' })).toEqual([]);
      expect(await store.audit.list({ operation: 'seed.recent', limit: 100 })).toHaveLength(10);
      expect((await store.audit.list({ operation: 'customers.delete.request' })).length).toBeGreaterThan(0);
      const [prune] = await store.audit.list({ operation: 'audit.prune' });
      expect(prune).toMatchObject({
        actorId: 'system',
        outcome: 'succeeded',
        detail: '2500 entries older than 30 days removed in 3 batches',
      });
    } finally {
      await store.close();
    }
  });
});

describe('audit log export, not set up', () => {
  const fakes = useFakes();

  it('says who must set what when nobody may export', async () => {
    const app = await fakes.startListenerApp({ env: { DELETION_APPROVERS: undefined, AUDIT_VIEWERS: undefined } });
    try {
      const { ack } = await app.command('audit');
      expect(ack?.text).toContain("The audit log export is not set up: the app's operator must set AUDIT_VIEWERS");
    } finally {
      await app.stop();
    }
  });
});
