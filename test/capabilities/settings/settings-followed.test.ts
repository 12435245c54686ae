import { afterAll, describe, expect, it } from 'vitest';
import { FIELDS } from '../../../src/capabilities/settings/settings-form.js';
import { ended, linkCsv, previewOf, start } from '../bulk/bulk-kit.js';
import { DeletionFlow } from '../../kit/deletion-flow.js';
import { useListenerApp, useFakes } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { SettingsFlow } from '../../kit/settings-flow.js';
import { textOf } from '../../kit/slack-checks.js';

const ADMIN = 'U0ADMIN01';

/* A setting the form changes is what the next piece of work runs under: here the bulk jobs' concurrency. */
describe('the bulk concurrency set in Slack', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    env: { SETTINGS_ADMINS: ADMIN, BULK_CONCURRENCY: '4', MAX_WORK_IN_FLIGHT: '40' },
  });
  const settings = new SettingsFlow(fakes);

  it('is the number of rows the next job sends at once', async () => {
    const form = await settings.open(running.app, ADMIN);
    const ack = await settings.save(running.app, form, { [FIELDS.bulkConcurrency]: '2' }, ADMIN);
    expect(textOf(ack)).toContain('*Saved.*');

    fakes.mint.latencyMs = 150;
    const preview = await previewOf(running.app, fakes.slack, linkCsv(12), { bulk_nft_id: 'nft-bulk' });
    const started = await start(running.app, fakes.slack, preview);
    await ended(fakes.slack, started);
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(12);
    expect(fakes.mint.peakInFlight).toBe(2);
  });
});

/* The reminder hours set in Slack: a request waits that long, not DELETION_REMIND_AFTER_HOURS, before its reminder. */
describe('the reminder hours set in Slack', () => {
  const fakes = useFakes();
  const APPROVAL = 'C0APPROVE';
  const flow = new DeletionFlow(fakes, APPROVAL);
  const settings = new SettingsFlow(fakes);
  const env = {
    SETTINGS_ADMINS: ADMIN,
    APPROVAL_CHANNEL_ID: APPROVAL,
    DELETION_APPROVERS: 'U0APPROV1',
    DELETION_REMIND_AFTER_HOURS: '24',
    DATABASE_URL: sqliteDatabase().databaseUrl,
  };
  const apps: ListenerApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.stop();
  });

  it('are how long the next request waits for its reminder', async () => {
    const app = await fakes.startListenerApp({ env });
    apps.push(app);
    const form = await settings.open(app, ADMIN);
    expect(textOf(await settings.save(app, form, { [FIELDS.remindHours]: '1' }, ADMIN))).toContain('*Saved.*');
    const { ts } = await flow.request(app, ['cus_remind'], 'U0ALICE01');
    await app.waitForIdle();
    expect(flow.reminders(ts)).toEqual([]);

    // Two hours later (a replica whose clock runs ahead): past the hour set in Slack, far from the 24 of the
    // environment.
    const later = await fakes.startListenerApp({ env: { ...env, TEST_CLOCK_OFFSET_HOURS: '2' } });
    apps.push(later);
    await fakes.slack.waitFor(() => flow.reminders(ts).length > 0, 8_000, 'the reminder');
  });
});
