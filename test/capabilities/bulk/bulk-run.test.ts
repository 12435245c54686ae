import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ListenerApp } from '../../kit/listener-app.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import {
  DM,
  csvRows,
  ended,
  holdMintAnswers,
  linkCsv,
  previewOf,
  progress,
  start,
  QUICK_BULK_PACE,
} from './bulk-kit.js';
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
    // The Mint calls' time budget is not what these tests are about: long enough for a loaded machine.
    env: { MINT_API_TIMEOUT_MS: '30000', BULK_CONCURRENCY: '3', DELETION_APPROVERS: APPROVER },
  });
  const app = (): ListenerApp => running.app;
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const job = async (rows: number, extra = '') => {
    const preview = await previewOf(app(), fakes.slack, `${linkCsv(rows)}${extra}`, { bulk_nft_id: 'nft-bulk' });
    return start(app(), fakes.slack, preview);
  };

  it('sends every valid row once, at most BULK_CONCURRENCY at a time, shows progress once a gap at most, and uploads the results', async () => {
    // The service holds its answers until the job has 3 rows at it and its message shows progress on the way.
    const answer = holdMintAnswers(fakes.mint);
    const preview = await previewOf(app(), fakes.slack, `${linkCsv(12)}\nnot-an-email`, { bulk_nft_id: 'nft-bulk' });
    const startedAt = Date.now(); // no update of its message can be claimed before this
    const started = await start(app(), fakes.slack, preview);
    const dm = fakes.slack.callsTo('chat.postMessage').find((c) => c.answer?.ts === started.ts);
    expect(dm?.params.channel).toBe(TEST_USER_ID);
    expect(textOf(dm?.params.blocks)).toContain(`*Bulk job ${started.jobId}*: 12 mint links`);
    expect(textOf(progress(fakes.slack, started).blocks)).toContain('bulk_pause');
    const updatesOfJob = () => fakes.slack.callsTo('chat.update').filter((c) => c.params.ts === started.ts);
    await fakes.slack.waitFor(() => fakes.mint.inFlight === 3 && updatesOfJob().length > 0, 10_000, 'rows at work');
    answer();

    const { results, message, upload } = await ended(fakes.slack, started);
    const endedAt = Date.now(); // every update of its message has reached Slack by now
    expect(emailsSent(fakes).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `u${i + 1}@example.com`).sort());
    expect(fakes.mint.requestsTo('create_link')[0]?.body).toEqual({
      email: 'u1@example.com',
      nftId: 'nft-bulk',
      walletOptions: 'CUSTODIAL',
      type: 'GENERAL',
      isActive: true,
    });
    expect(fakes.mint.peakInFlight).toBe(3);

    // The message was updated while it ran, never twice within the gap (2 s in the app), and ends with the totals.
    // Each update is claimed at least a gap after the one before (the post at Start counts as one), all of them
    // between startedAt and endedAt: however late each reached Slack, there can be no more of them than this.
    const updates = updatesOfJob();
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.length).toBeLessThanOrEqual(Math.floor((endedAt - startedAt) / QUICK_BULK_PACE.progressGapMs));
    expect(updates.some((u) => /\d+%/.test(textOf(u.params.blocks)) && !textOf(u.params.blocks).includes('100%'))).toBe(
      true,
    );
    expect(textOf(message.blocks)).toContain(
      '*Finished*: *12 created* · 0 failed · 0 maybe created · 1 with errors in the file',
    );
    expect(textOf(message.blocks)).not.toContain('bulk_pause');

    // files.uploadV2's way: a URL for the name and length, the bytes, then the completion in the DM.
    const asked = fakes.slack.callsTo('files.getUploadURLExternal').find((c) => c.answer?.file_id === upload?.fileId);
    expect(asked?.params).toMatchObject({ filename: `${started.jobId}-results.csv`, length: String(upload?.length) });
    expect(upload?.completed).toMatchObject({ channelId: DM, initialComment: expect.stringContaining('12 created') });
    const rows = csvRows(results);
    expect(rows[0]).toEqual(['row', 'email', 'outcome', 'link_url', 'error']);
    expect(rows).toHaveLength(14);
    const links = new Map(fakes.mint.links.map((l) => [l.email, l.url]));
    expect(rows[1]).toEqual(['2', 'u1@example.com', 'created', links.get('u1@example.com'), '']);
    expect(rows[13]).toEqual([
      '14',
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
        inputs: { jobId: started.jobId, valid: 12 },
      });
      expect(entry?.detail).toContain('12 created, 0 failed, 0 maybe created, 0 cancelled, 1 invalid; results file F');
      const saved = await store.bulkJobs.get(started.jobId);
      expect(saved?.auditId).toBe(entry?.id); // every row of the job is linked to this entry through the job
      expect(await store.bulkJobs.counts(started.jobId)).toMatchObject({
        done: 12,
        invalid: 1,
        pending: 0,
        sending: 0,
      });
    } finally {
      await store.close();
    }
  }, 30_000);

  it('shows the job on the requester’s Home while it runs, and takes Pause there', async () => {
    const answer = holdMintAnswers(fakes.mint); // its first rows stay at the service: the job runs meanwhile
    const started = await job(6);
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
    answer();
    await app().click(progress(fakes.slack, started), BULK.buttons.cancel.actionId);
    await ended(fakes.slack, started);
  }, 30_000);

  it('lets only the requester or an approver pause, resume or cancel; nothing is sent while paused', async () => {
    const answerFirst = holdMintAnswers(fakes.mint); // its first rows stay at the service until it is paused
    const started = await job(12);
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
    answerFirst();
    await app().waitForIdle();
    const sentWhenPaused = fakes.mint.requestsTo('create_link').length;
    expect(sentWhenPaused).toBeLessThan(12);
    const store = app().openStore();
    try {
      // Paused: nothing is being sent, the rest waits as pending (claims take rows of running jobs only).
      expect(await store.bulkJobs.counts(started.jobId)).toMatchObject({ sending: 0, pending: 12 - sentWhenPaused });
    } finally {
      await store.close();
    }
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(sentWhenPaused);
    const message = progress(fakes.slack, started);
    expect(textOf(message.blocks)).toContain('bulk_resume');
    const answerResumed = holdMintAnswers(fakes.mint); // the rows sent again stay at the service until Cancel
    await app().click(message, BULK.buttons.resume.actionId, APPROVER);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length > sentWhenPaused, 5_000, 'resumed');

    await app().click(progress(fakes.slack, started), BULK.buttons.cancel.actionId, APPROVER);
    answerResumed();
    const { results, message: last } = await ended(fakes.slack, started);
    const sent = fakes.mint.requestsTo('create_link').length;
    expect(sent).toBeLessThan(12);
    expect(new Set(emailsSent(fakes)).size).toBe(sent); // none twice
    expect(textOf(last.blocks)).toContain(`*Cancelled* by <@${APPROVER}>: *${sent} created*`);
    const outcomes = csvRows(results)
      .slice(1)
      .map((r) => r[2]);
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(sent);
    expect(outcomes.filter((o) => o === 'not sent (cancelled)')).toHaveLength(12 - sent);

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
