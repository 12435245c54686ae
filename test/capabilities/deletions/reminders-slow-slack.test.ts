import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useFakes } from '../../kit/fakes.js';
import { textOf } from '../../kit/slack-checks.js';
import { sqliteDatabase, type TestDatabase } from '../../kit/store-engines.js';

const APPROVAL = 'C0APPROVE';
const ALICE = 'U0ALICE01';
const ENV = {
  APPROVAL_CHANNEL_ID: APPROVAL,
  DELETION_APPROVERS: 'U0APPROV1',
};
/** The deadline on a Slack call of the app that meets the late Slack (10 s in the app), and Slack's answer past it. */
const DEADLINE_MS = 500;
const LATE_MS = 2 * DEADLINE_MS;

/**
 * Slack slower than the app's deadline: chat.postMessage answers "ok" after it, so each post the app gave up on
 * is a message in the channel all the same. A reminder (or a warning) whose post timed out may have been posted:
 * it is kept as sent, never posted again.
 */
describe('deletion reminders when Slack answers after the deadline', () => {
  const fakes = useFakes();
  const flow = new DeletionFlow(fakes, APPROVAL);
  let db: TestDatabase;
  const apps: ListenerApp[] = [];
  const start = async (extra: Record<string, string> = {}, slackCallDeadlineMs?: number) => {
    const app = await fakes.startListenerApp({
      env: { ...ENV, DATABASE_URL: db.databaseUrl, ...extra },
      ...(slackCallDeadlineMs ? { slackCallDeadlineMs } : {}),
    });
    apps.push(app);
    return app;
  };

  beforeAll(() => {
    db = sqliteDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await db?.drop();
  }, 60_000);

  it('posts one reminder and one expiry warning, each once, though Slack confirms neither in time', async () => {
    const app = await start();
    const { id, ts } = await flow.request(app, ['cus_slow'], ALICE);
    await app.waitForIdle();
    await app.stop();

    // Every post from now on takes effect in Slack, but is answered late.
    const before = fakes.slack.callsTo('chat.postMessage').length;
    fakes.slack.answerNext('chat.postMessage', { delayMs: LATE_MS }, 20);
    const late = await start({ TEST_CLOCK_OFFSET_HOURS: '70' }, DEADLINE_MS); // due a reminder, and 2 of 72 hours left
    const posts = () => fakes.slack.callsTo('chat.postMessage').slice(before);
    const keptAsSent = () =>
      late.logLines.filter((l) => String(l.msg).includes('it may have been posted, so it is not sent again'));
    // The app gives up on both posts (at its deadline each), or (were it to send blindly) posts one of them again.
    await fakes.slack.waitFor(() => keptAsSent().length === 2 || posts().length > 2, 40_000, 'both posts to end');

    const reminders = posts().filter((c) => c.params.thread_ts === ts);
    const warnings = posts().filter((c) => c.params.channel === ALICE);
    expect(reminders).toHaveLength(1);
    expect(textOf(reminders[0]?.params.blocks)).toContain('*Reminder:*');
    expect(warnings).toHaveLength(1);
    expect(textOf(warnings[0]?.params.blocks)).toContain(`Your request *${id}* to delete *1 customer* expires`);
    await late.waitForIdle(15_000);
    expect(posts()).toHaveLength(2);

    // Both stay claimed in the database: no sweep (here or on another replica) posts them again.
    const store = late.openStore();
    try {
      expect(Object.keys(await store.deletionReminders.sent(TEST_TEAM_ID, id)).sort()).toEqual([
        'expiry-warning',
        'reminder',
      ]);
    } finally {
      await store.close();
    }
  }, 90_000);
});
