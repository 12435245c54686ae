import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NO_SUCH_JOB } from '../../../src/capabilities/bulk/bulk-buttons.js';
import { REMOVED_NOTE, REMOVED_ROW_ERROR } from '../../../src/capabilities/bulk/stop-workspace.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { installInProcess } from '../../kit/listener-installs.js';
import { expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { eventCallback } from '../../kit/slack-payloads.js';
import { DISTRIBUTION_ENV, OTHER_TEAM_ID, OTHER_USER_ID, inTeam, uninstallPayload } from '../../kit/workspaces.js';
import { QUICK_BULK_PACE, csvRows, ended, holdMintAnswers, linkCsv, progress } from './bulk-kit.js';
import { BulkUser, forgedButton, rowNumberOf, type StartedJob } from './bulk-workspaces-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

const APPROVER = 'U0APPROV1';

/* Distribution mode: two workspaces installed with "Add to Slack", each with its bulk jobs. */
describe('bulk create in distribution mode: each workspace’s jobs apart', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    // The Mint calls' time budget is not what these tests are about: long enough for a loaded machine.
    env: { ...DISTRIBUTION_ENV, DELETION_APPROVERS: APPROVER, BULK_CONCURRENCY: '2', MINT_API_TIMEOUT_MS: '30000' },
  });
  const app = (): ListenerApp => running.app;
  const tokens = { a: '', b: '' };
  beforeAll(async () => {
    tokens.a = await installInProcess(app(), fakes.slack, { teamId: TEST_TEAM_ID });
    tokens.b = await installInProcess(app(), fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
  });
  afterEach(() => {
    // Every call carries its workspace's token: Slack refuses none.
    expect(fakes.slack.failedCalls.map((c) => ({ method: c.method, answer: c.answer }))).toEqual([]);
  });
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  const inA = (userId = TEST_USER_ID) => new BulkUser(app(), fakes.slack, TEST_TEAM_ID, userId);
  const inB = (userId = OTHER_USER_ID) => new BulkUser(app(), fakes.slack, OTHER_TEAM_ID, userId);
  const sentFrom = (from: number, to: number) =>
    fakes.mint.requestsTo('create_link').filter((r) => rowNumberOf(r.body) >= from && rowNumberOf(r.body) <= to);
  const stored = async <T>(read: (store: ReturnType<ListenerApp['openStore']>) => Promise<T>): Promise<T> => {
    const store = app().openStore();
    try {
      return await read(store);
    } finally {
      await store.close();
    }
  };
  const homeOpened = async (teamId: string, userId: string) => {
    const body = inTeam(
      eventCallback({ type: 'app_home_opened', user: userId, channel: 'D0HOME', tab: 'home' }),
      teamId,
    );
    await app().deliverEvent(body);
  };

  it('refuses every button and form of another workspace that names a job of this one, and reads or changes nothing of it', async () => {
    const owner = inA();
    // The same person id in the other workspace (an Enterprise Grid user has one id in every workspace) and an
    // approver there: only the workspace tells them apart from the job's requester and approvers.
    const sameIdInB = inB(TEST_USER_ID);
    const approverInB = inB(APPROVER);
    const preview = await owner.preview(`${linkCsv(8)}\nnot-an-email`, { bulk_nft_id: 'nft-a' });
    const jobId = String(preview.private_metadata);

    // "Send me the errors as CSV" on A's preview, clicked as from B: a note to the clicker, no file.
    await sameIdInB.clickInView(preview, BULK.buttons.errorsFile.actionId);
    const note = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === TEST_USER_ID && String(c.params.text).includes('This check no longer exists'),
    );
    expect(note.token).toBe(tokens.b);
    // Start on A's preview, submitted as from B: the modal says so, nothing starts.
    await sameIdInB.submit({ ...preview, hash: 'forged-start' });
    await app().waitForIdle();
    expect(textOf(fakes.slack.view(preview.id))).toContain('This check no longer exists');
    expect(await stored((s) => s.bulkJobs.inTeam(TEST_TEAM_ID).get(jobId))).toMatchObject({ status: 'draft' });

    const answer = holdMintAnswers(fakes.mint); // its first rows stay at the service: it runs until paused
    const started = await owner.start({ ...preview, hash: 'owner-start' });
    await fakes.slack.waitFor(() => sentFrom(1, 8).length >= 2, 5_000, 'the first rows');
    for (const [forger, control] of [
      [sameIdInB, BULK.buttons.pause.actionId],
      [approverInB, BULK.buttons.cancel.actionId],
    ] as const) {
      const url = await forger.click(progress(fakes.slack, started), control);
      const [answer] = await fakes.slack.waitForResponse(url);
      expect(answer?.body).toMatchObject({ response_type: 'ephemeral', text: NO_SUCH_JOB });
    }
    // Paused by its owner: Resume and Cancel forged from B leave it paused.
    await owner.click(progress(fakes.slack, started), BULK.buttons.pause.actionId);
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, started).blocks).includes('bulk_resume'),
      5_000,
      'paused',
    );
    answer();
    for (const control of [
      BULK.buttons.resume.actionId,
      BULK.buttons.cancel.actionId,
      BULK.buttons.resendResults.actionId,
    ]) {
      const url = await approverInB.click(forgedButton(control, jobId), control);
      const [answer] = await fakes.slack.waitForResponse(url);
      expect(answer?.body).toMatchObject({ text: NO_SUCH_JOB });
    }
    expect(await stored((s) => s.bulkJobs.inTeam(TEST_TEAM_ID).get(jobId))).toMatchObject({ status: 'paused' });

    // B's Home, for the same person id and for an approver there: nothing of A's jobs; A's Home: the job.
    const homeIn = async (teamId: string, userId: string, token: string) => {
      const before = fakes.slack.callsTo('views.publish').length;
      await homeOpened(teamId, userId);
      return fakes.slack.waitFor(
        () =>
          fakes.slack
            .callsTo('views.publish')
            .slice(before)
            .find((c) => c.params.user_id === userId && c.token === token),
        5_000,
        `the Home of ${userId} in ${teamId}`,
      );
    };
    for (const userId of [TEST_USER_ID, APPROVER])
      expect(textOf((await homeIn(OTHER_TEAM_ID, userId, tokens.b)).params.view)).not.toContain(jobId);
    expect(textOf((await homeIn(TEST_TEAM_ID, TEST_USER_ID, tokens.a)).params.view)).toContain(jobId);
    await app().waitForIdle();
    for (const publish of fakes.slack.callsTo('views.publish').filter((c) => c.token === tokens.b))
      expect(textOf(publish.params.view)).not.toContain(jobId);

    await owner.click(progress(fakes.slack, started), BULK.buttons.resume.actionId);
    const { results, upload } = await ended(fakes.slack, started);
    expect(new Set(sentFrom(1, 8).map((r) => rowNumberOf(r.body))).size).toBe(8);
    expect(sentFrom(1, 8)).toHaveLength(8);
    expect(csvRows(results).filter((r) => r[2] === 'created')).toHaveLength(8);
    const completed = fakes.slack
      .callsTo('files.completeUploadExternal')
      .find((c) => JSON.stringify(c.params).includes(upload?.fileId ?? '?'));
    expect(completed?.token).toBe(tokens.a);
    // No file of A's ever went out with B's token.
    for (const call of fakes.slack.calls.filter((c) => c.method.startsWith('files.')))
      expect(call.token).toBe(tokens.a);
    const entries = await stored((s) => s.audit.list({ limit: 50 }));
    const ofJob = entries.filter((e) => e.inputs.jobId === jobId).reverse();
    expect(ofJob.map((e) => [e.operation, e.actorId, e.teamId])).toEqual([
      ['bulk.run', TEST_USER_ID, TEST_TEAM_ID],
      ['bulk.pause', TEST_USER_ID, TEST_TEAM_ID],
      ['bulk.resume', TEST_USER_ID, TEST_TEAM_ID],
    ]);
  }, 40_000);

  it('posts and updates each workspace’s progress, and sends its results, with that workspace’s bot token; a small job goes on beside a big one', async () => {
    // The service holds its answers until both jobs have rows at it: B's were sent while A's were under way.
    const answer = holdMintAnswers(fakes.mint);
    const big = await inA().start(await inA().preview(linkCsv(16, 1), { bulk_nft_id: 'nft-a' }));
    await fakes.slack.waitFor(() => sentFrom(1, 16).length >= 2, 5_000, 'the first rows of the big job');
    const small = await inB().start(await inB().preview(linkCsv(6, 1001), { bulk_nft_id: 'nft-b' }));
    await fakes.slack.waitFor(() => sentFrom(1001, 1006).length >= 2, 5_000, 'the first rows of the small job');
    answer();

    const smallEnd = await ended(fakes.slack, small);
    const bigEnd = await ended(fakes.slack, big, 30_000);
    // B's job, started after A's, was all sent while A's was still being sent: neither waits for the other.
    const lastSent = (from: number, to: number) => Math.max(...sentFrom(from, to).map((r) => r.at));
    expect(lastSent(1001, 1006)).toBeLessThan(lastSent(1, 16));
    expect(csvRows(smallEnd.results).filter((r) => r[2] === 'created')).toHaveLength(6);
    expect(csvRows(bigEnd.results).filter((r) => r[2] === 'created')).toHaveLength(16);

    const tokenOf = (job: StartedJob, method: string) =>
      fakes.slack
        .callsTo(method)
        .filter((c) => c.params.ts === job.ts || c.answer?.ts === job.ts)
        .map((c) => c.token);
    for (const [job, token] of [
      [small, tokens.b],
      [big, tokens.a],
    ] as const) {
      expect(tokenOf(job, 'chat.postMessage')).toEqual([token]);
      const updates = tokenOf(job, 'chat.update');
      expect(updates.length).toBeGreaterThan(0);
      expect(new Set(updates)).toEqual(new Set([token]));
    }
    const completions = fakes.slack.callsTo('files.completeUploadExternal');
    const uploadToken = (fileId: string | undefined) =>
      completions.find((c) => JSON.stringify(c.params).includes(fileId ?? '?'))?.token;
    expect(uploadToken(smallEnd.upload?.fileId)).toBe(tokens.b);
    expect(uploadToken(bigEnd.upload?.fileId)).toBe(tokens.a);
  }, 60_000);

  it('stops a workspace’s jobs at once when it removes the app: unsent rows never sent and marked, the other workspace’s job goes on', async () => {
    // The service holds its answers until B has removed the app: B's first rows are in flight at the stop.
    const answer = holdMintAnswers(fakes.mint);
    const ofA = await inA().start(await inA().preview(linkCsv(8, 1), { bulk_nft_id: 'nft-a' }));
    const removed = await inB().start(await inB().preview(linkCsv(10, 1001), { bulk_nft_id: 'nft-b' }));
    const paused = await inB().start(await inB().preview(linkCsv(5, 2001), { bulk_nft_id: 'nft-b' }));
    await inB().click(progress(fakes.slack, paused), BULK.buttons.pause.actionId);
    await fakes.slack.waitFor(() => sentFrom(1001, 1010).length >= 2, 5_000, 'the first rows of B');

    await app().deliverEvent(uninstallPayload(OTHER_TEAM_ID));
    await app().waitForLog((line) => line.msg === 'bulk jobs of a workspace that removed the app stopped');
    const stoppedAt = sentFrom(1001, 2005).length;
    await app().waitForLog((line) => line.msg === 'the app was removed from a workspace: its work is stopped');
    answer();

    await ended(fakes.slack, ofA, 30_000);
    await app().waitForIdle();
    expect(sentFrom(1, 8)).toHaveLength(8);
    // Rows of B in flight at the stop ended as they ended (at most 2: its concurrency); none was sent after.
    const sentOfB = sentFrom(1001, 2005);
    expect(sentOfB.length - stoppedAt).toBeLessThanOrEqual(2);
    expect(sentOfB.length).toBeLessThan(10);
    await stored(async (store) => {
      const jobs = store.bulkJobs.inTeam(OTHER_TEAM_ID);
      for (const job of [removed, paused]) {
        const saved = await store.bulkJobs.inTeam(OTHER_TEAM_ID).get(job.jobId);
        expect(saved).toMatchObject({ cancelledBy: 'system', changedBy: 'system', note: REMOVED_NOTE });
        expect(['finishing', 'done']).toContain(saved?.status);
      }
      const counts = await jobs.counts(removed.jobId);
      expect(counts).toMatchObject({ pending: 0, sending: 0, failed: 0, unknown: 0, done: sentOfB.length });
      expect(counts.cancelled).toBe(10 - sentOfB.length);
      const cancelled = await jobs.rows(removed.jobId, { statuses: ['cancelled'] });
      expect(new Set(cancelled.map((r) => r.error))).toEqual(new Set([REMOVED_ROW_ERROR]));
      expect(await jobs.counts(paused.jobId)).toMatchObject({ cancelled: 5, done: 0 });
      const audit = await store.audit.list({ operation: 'bulk.cancel', limit: 10 });
      expect(
        audit
          .filter((e) => e.actorId === 'system')
          .map((e) => [e.inputs.jobId, e.teamId, e.detail])
          .sort(),
      ).toEqual(
        [
          [removed.jobId, OTHER_TEAM_ID, REMOVED_NOTE],
          [paused.jobId, OTHER_TEAM_ID, REMOVED_NOTE],
        ].sort(),
      );
      expect(await store.bulkJobs.inTeam(TEST_TEAM_ID).get(ofA.jobId)).toMatchObject({
        status: 'done',
        cancelledBy: undefined,
      });
    });
  }, 60_000);
});
