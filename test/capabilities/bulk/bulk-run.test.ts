import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ListenerApp } from '../../kit/listener-app.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { DM, csvRows, ended, linkCsv, previewOf, progress, start, QUICK_BULK_PACE } from './bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

const APPROVER = 'U0APPROV1';
const STRANGER = 'U0STRANGE';

/** Emails the mock service was asked to create links for, in order. */
const emailsSent = (fakes: ReturnType<typeof useFakes>) =>
  fakes.mint.requestsTo('create_link').map((r) => (r.body as { email?: string }).email);

/* A started job: rows sent with bounded concurrency, its progress, its controls, its results file. */
describe('bulk create: running a job', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { MINT_API_TIMEOUT_MS: '2000', BULK_CONCURRENCY: '3', DELETION_APPROVERS: APPROVER },
  });
  const app = (): ListenerApp => running.app;
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const job = async (rows: number, extra = '') => {
    const preview = await previewOf(app(), fakes.slack, `${linkCsv(rows)}${extra}`, { bulk_nft_id: 'nft-bulk' });
    return start(app(), fakes.slack, preview);
  };

  it('sends every valid row once, at most BULK_CONCURRENCY at a time, shows progress once a gap at most, and uploads the results', async () => {
    fakes.mint.latencyMs = 50; // 30 rows, 3 at a time: 500 ms, five progress gaps: updates on the way
    const started = await job(30, '\nnot-an-email');
    const dm = fakes.slack.callsTo('chat.postMessage').find((c) => c.answer?.ts === started.ts);
    expect(dm?.params.channel).toBe(TEST_USER_ID);
    expect(textOf(dm?.params.blocks)).toContain(`*Bulk job ${started.jobId}*: 30 mint links`);
    expect(textOf(progress(fakes.slack, started).blocks)).toContain('bulk_pause');

    const { results, message, upload } = await ended(fakes.slack, started);
    expect(emailsSent(fakes).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `u${i + 1}@example.com`).sort());
    expect(fakes.mint.requestsTo('create_link')[0]?.body).toEqual({
      email: 'u1@example.com',
      nftId: 'nft-bulk',
      walletOptions: 'CUSTODIAL',
      type: 'GENERAL',
      isActive: true,
    });
    expect(fakes.mint.peakInFlight).toBe(3);

    // The message was updated while it ran, never twice within the gap (2 s in the app), and ends with the totals.
    const updates = fakes.slack.callsTo('chat.update').filter((c) => c.params.ts === started.ts);
    expect(updates.length).toBeGreaterThanOrEqual(2);
    const gaps = updates.map((u, i) => u.at - (updates[i - 1]?.at ?? dm?.at ?? 0)); // the post counts as one
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(QUICK_BULK_PACE.progressGapMs / 2); // less what the calls' timing may shift
    expect(updates.some((u) => /\d+%/.test(textOf(u.params.blocks)) && !textOf(u.params.blocks).includes('100%'))).toBe(
      true,
    );
    expect(textOf(message.blocks)).toContain(
      '*Finished*: *30 created* · 0 failed · 0 maybe created · 1 with errors in the file',
    );
    expect(textOf(message.blocks)).not.toContain('bulk_pause');

    // files.uploadV2's way: a URL for the name and length, the bytes, then the completion in the DM.
    const asked = fakes.slack.callsTo('files.getUploadURLExternal').find((c) => c.answer?.file_id === upload?.fileId);
    expect(asked?.params).toMatchObject({ filename: `${started.jobId}-results.csv`, length: String(upload?.length) });
    expect(upload?.completed).toMatchObject({ channelId: DM, initialComment: expect.stringContaining('30 created') });
    const rows = csvRows(results);
    expect(rows[0]).toEqual(['row', 'email', 'outcome', 'link_url', 'error']);
    expect(rows).toHaveLength(32);
    const links = new Map(fakes.mint.links.map((l) => [l.email, l.url]));
    expect(rows[1]).toEqual(['2', 'u1@example.com', 'created', links.get('u1@example.com'), '']);
    expect(rows[31]).toEqual([
      '32',
      'not-an-email',
      'not sent (error in the file)',
      '',
      'email: must be an email address',
    ]);

    const store = app().openStore();
    try {
      const [entry] = await store.audit.list({ operation: 'bulk.run', limit: 1 });
      expect(entry).toMatchObject({
        actorId: TEST_USER_ID,
        outcome: 'succeeded',
        inputs: { jobId: started.jobId, valid: 30 },
      });
      expect(entry?.detail).toContain('30 created, 0 failed, 0 maybe created, 0 cancelled, 1 invalid; results file F');
      const saved = await store.bulkJobs.get(started.jobId);
      expect(saved?.auditId).toBe(entry?.id); // every row of the job is linked to this entry through the job
      expect(await store.bulkJobs.counts(started.jobId)).toMatchObject({
        done: 30,
        invalid: 1,
        pending: 0,
        sending: 0,
      });
    } finally {
      await store.close();
    }
  }, 30_000);

  it('shows the job on the requester’s Home while it runs, and takes Pause there', async () => {
    fakes.mint.latencyMs = 200;
    const started = await job(20);
    await app().event({ type: 'app_home_opened', user: TEST_USER_ID, tab: 'home' });
    const publish = await fakes.slack.waitForCall(
      'views.publish',
      (c) => c.params.user_id === TEST_USER_ID && textOf(c.params.view).includes(started.jobId),
    );
    expect(textOf(publish.params.view)).toContain('*Your bulk jobs*');
    const home = fakes.slack.view(TEST_USER_ID); // the Home tab as Slack keeps it, with its id and hash
    expect(textOf(home)).toContain(BULK.buttons.createFromHome.actionId);
    await app().clickOnHome(home, BULK.buttons.pause.actionId, TEST_USER_ID, started.jobId);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, started).blocks).includes('*Paused* by'),
      5_000,
      'paused',
    );
    await app().click(progress(fakes.slack, started), BULK.buttons.cancel.actionId);
    await ended(fakes.slack, started);
  }, 30_000);

  it('lets only the requester or an approver pause, resume or cancel; nothing is sent while paused', async () => {
    fakes.mint.latencyMs = 200;
    const started = await job(40);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length >= 3, 5_000, 'the first rows');

    const refused = await app().click(progress(fakes.slack, started), BULK.buttons.pause.actionId, STRANGER);
    const [answer] = await fakes.slack.waitForResponse(refused);
    expect(answer?.body).toMatchObject({ response_type: 'ephemeral' });
    expect(String(answer?.body.text)).toContain(
      `Only <@${TEST_USER_ID}>, who started ${started.jobId}, or an approver`,
    );

    await app().click(progress(fakes.slack, started), BULK.buttons.pause.actionId);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, started).blocks).includes('*Paused* by'),
      5_000,
      'paused',
    );
    await app().waitForIdle();
    const sentWhenPaused = fakes.mint.requestsTo('create_link').length;
    expect(sentWhenPaused).toBeLessThan(40);
    const store = app().openStore();
    try {
      // Paused: nothing is being sent, the rest waits as pending (claims take rows of running jobs only).
      expect(await store.bulkJobs.counts(started.jobId)).toMatchObject({ sending: 0, pending: 40 - sentWhenPaused });
    } finally {
      await store.close();
    }
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(sentWhenPaused);
    const message = progress(fakes.slack, started);
    expect(textOf(message.blocks)).toContain('bulk_resume');
    await app().click(message, BULK.buttons.resume.actionId, APPROVER);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length > sentWhenPaused, 5_000, 'resumed');

    await app().click(progress(fakes.slack, started), BULK.buttons.cancel.actionId, APPROVER);
    const { results, message: last } = await ended(fakes.slack, started);
    const sent = fakes.mint.requestsTo('create_link').length;
    expect(sent).toBeLessThan(40);
    expect(new Set(emailsSent(fakes)).size).toBe(sent); // none twice
    expect(textOf(last.blocks)).toContain(`*Cancelled* by <@${APPROVER}>: *${sent} created*`);
    const outcomes = csvRows(results)
      .slice(1)
      .map((r) => r[2]);
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(sent);
    expect(outcomes.filter((o) => o === 'not sent (cancelled)')).toHaveLength(40 - sent);

    const audit = app().openStore();
    try {
      const entries = (await audit.audit.list({ limit: 20 })).filter((e) => e.inputs.jobId === started.jobId).reverse();
      expect(entries.map((e) => [e.operation, e.actorId, e.outcome])).toEqual([
        ['bulk.run', TEST_USER_ID, 'cancelled'],
        ['bulk.pause', TEST_USER_ID, 'paused'],
        ['bulk.resume', APPROVER, 'resumed'],
        ['bulk.cancel', APPROVER, 'cancelled'],
      ]);
    } finally {
      await audit.close();
    }
  }, 30_000);

  it('starts a job once, by its requester only', async () => {
    const preview = await previewOf(app(), fakes.slack, linkCsv(2), { bulk_nft_id: 'n' });
    // Someone else submitting the same preview (a forged payload): refused, nothing starts.
    await app().submitView({ ...preview, hash: 'other-version' }, {}, STRANGER);
    await app().waitForIdle();
    expect(textOf(fakes.slack.view(preview.id))).toContain('Only the person who checked the file can start it');
    const started = await start(app(), fakes.slack, { ...preview, hash: 'first-version' });
    await ended(fakes.slack, started);
    await app().submitView({ ...preview, hash: 'again' }, {});
    await app().waitForIdle();
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(2);
    expect(textOf(fakes.slack.view(preview.id))).toContain('has already been started');
  });
});
