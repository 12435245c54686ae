import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AppProcess } from '../../kit/app-process.js';
import { seedAuditLog } from '../../kit/audit-seed.js';
import { useFakes } from '../../kit/fakes.js';
import { runSql } from '../../kit/raw-sql.js';
import { expectNoRejectedSlackCalls } from '../../kit/slack-checks.js';
import { describeEachEngine, migrated, type TestDatabase } from '../../kit/store-engines.js';

const VIEWER = 'U0AUDIT01';
/**
 * Enough entries for an export held in memory to stand out from the noise of a streamed one. Measured on this
 * machine: the streamed export grows the app's resident memory by 1 to 34 MB whatever its size (30,000 to 100,000
 * entries: garbage collection's timing, not the rows), while an export that keeps its rows until the end (every
 * page's CSV records, then one write) grew by 30 MB for 20,000 entries, 57 MB for 40,000 and 81 MB for 60,000.
 * More entries would prove nothing more and take longer: seeding, exporting, uploading and parsing grow with them.
 */
const ROWS = 60_000;
const HOUR = 3_600_000;
/** 1.5x the streamed export's largest growth measured, and well under the 81 MB of the one held in memory. */
const GROWTH_BOUND_MB = 50;

/**
 * An export of 60,000 entries from the real app (started as `npm start` starts it, old space capped at 160 MB)
 * grows its resident memory by little: the rows stream from the database through the CSV writer to a file, and
 * from the file to Slack, never all in memory. The peak bound catches a leak, not a slow machine (peaks of 117
 * to 151 MB were measured).
 */
describeEachEngine('audit export of 60,000 entries', (_engine, create) => {
  const fakes = useFakes();
  let db: TestDatabase;
  let app: AppProcess;

  beforeAll(async () => {
    db = await create();
    // The app's migrations make the tables; the rows go in behind its back, as if written over the past days.
    await migrated(db);
    const now = Date.now();
    await seedAuditLog(db.databaseUrl, ROWS, (i) => ({
      id: `0190aaaa-0000-7000-8000-${String(i).padStart(12, '0')}`,
      at: new Date(now - 48 * HOUR + Math.floor(i / 3) * 1_000).toISOString(), // three entries a second
      actor_id: `U0USER${String(i % 40).padStart(3, '0')}`,
      team_id: 'T0TEST001',
      operation: ['link.create', 'wallet.create', 'customers.delete.request', 'customers.delete.run'][i % 4]!,
      inputs: JSON.stringify({ nftId: `nft-${i}`, customerIds: [`cus_${i}`, `cus_${i + 1}`], reason: 'bulk seed' }),
      outcome: i % 10 === 0 ? 'failed' : 'succeeded',
      detail: i % 10 === 0 ? 'HTTP 503 from the service' : `https://mint.example.com/l/${i}`,
    }));
    // Entries written by this version go to History with their audit entries; the backfill copies only those
    // written before History existed (test/platform/store/history.test.ts), so it has none of these to copy.
    await runSql(
      db.databaseUrl,
      "insert into history_backfill (name, copied, finished_at) values ('audit-log', 0, ?)",
      [new Date(now).toISOString()],
    );
    app = await fakes.startProcess('http', { env: { DATABASE_URL: db.databaseUrl, AUDIT_VIEWERS: VIEWER } });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });

  it(`streams it to Slack, its resident memory growing by less than ${GROWTH_BOUND_MB} MB`, async () => {
    // An app in service has handled requests before (the first ones compile Bolt's, Kysely's and the app's
    // paths, V8 memory for a moment): a command and a Home tab, which reads the database.
    await app.command('help', { user_id: VIEWER });
    await app.event({ type: 'app_home_opened', user: VIEWER, channel: 'D0AUDIT01', tab: 'home' });
    await fakes.slack.waitForCall('views.publish');
    await app.waitForIdle();
    const startRss = app.rssMb;
    let peakRss = startRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, app.rssMb)), 20);
    try {
      await app.command('audit 7', { user_id: VIEWER });
      await fakes.slack.waitFor(() => fakes.slack.uploadsTo('D0AUDIT01')[0]?.completed, 90_000, 'the export');
      await app.waitForIdle(30_000);
    } finally {
      clearInterval(sampler);
    }
    const [upload] = fakes.slack.uploadsTo('D0AUDIT01');
    const records = parse(upload?.content ?? '');
    expect(records).toHaveLength(ROWS + 1); // and the header
    expect(records.at(-1)?.[9]).toBe(`0190aaaa-0000-7000-8000-${String(ROWS - 1).padStart(12, '0')}`);
    const intro = fakes.slack.callsTo('chat.postMessage').findLast((c) => c.params.channel === VIEWER);
    expect(String(intro?.params.text)).toContain('*60,000 entries*');
    process.stdout.write(
      `audit export of ${ROWS} rows (${(upload!.length / 1e6).toFixed(1)} MB): RSS ${startRss.toFixed(0)} MB before, peak ${peakRss.toFixed(0)} MB\n`,
    );
    expect(peakRss - startRss).toBeLessThan(GROWTH_BOUND_MB);
    expect(peakRss).toBeLessThan(230);
    expectNoRejectedSlackCalls(fakes.slack);
  }, 120_000);
});
