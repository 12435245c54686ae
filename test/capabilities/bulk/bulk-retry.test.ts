import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { NO_SUCH_JOB } from '../../../src/capabilities/bulk/bulk-buttons.js';
import { HELD_ROWS_BLOCK, HELD_ROWS_CHOICE } from '../../../src/capabilities/bulk/bulk-views.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import { buttonClick, type PostedMessage, type SlackView } from '../../kit/slack-payloads.js';
import { OTHER_TEAM_ID, inTeam } from '../../kit/workspaces.js';
import { DM, csvRows, ended, linkCsv, previewOf, progress, start, viewWhen, QUICK_BULK_PACE } from './bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

const APPROVER = 'U0APPROV1';
const STRANGER = 'U0STRANGE';

/* "Retry failed rows" on an ended job: a new job of its failed rows, previewed and started like any other. */
describe('bulk create: retrying failed rows', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    // One row at a time: the Mint service's failures fall on known rows.
    env: { MINT_API_TIMEOUT_MS: '30000', BULK_CONCURRENCY: '1', DELETION_APPROVERS: APPROVER }, // a budget no loaded machine reaches
  });
  const app = (): ListenerApp => running.app;
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  /** How often the mock service was asked to create a link for each email. */
  const sends = () => {
    const count = new Map<string, number>();
    for (const r of fakes.mint.requestsTo('create_link')) {
      const email = String((r.body as { email?: string }).email);
      count.set(email, (count.get(email) ?? 0) + 1);
    }
    return count;
  };

  /** A job of `rows` links whose first requests the service answers with `statuses`, run to its end. */
  const endedJob = async (rows: number, statuses: number[]) => {
    for (const status of statuses) fakes.mint.failNext('create_link', { mode: 'status', status }, 1);
    const preview = await previewOf(app(), fakes.slack, linkCsv(rows), { bulk_nft_id: 'nft-r' });
    const job = await start(app(), fakes.slack, preview);
    await ended(fakes.slack, job);
    return job;
  };

  /** Clicks "Retry failed rows"; resolves with the modal once it shows the retry's preview. */
  const retryPreview = async (message: PostedMessage, userId = TEST_USER_ID): Promise<SlackView> => {
    const opened = fakes.slack.callsTo('views.open').length;
    await app().click(message, BULK.buttons.retry.actionId, userId);
    const open = await fakes.slack.waitFor(
      () => fakes.slack.callsTo('views.open')[opened],
      5_000,
      'the retry modal to open',
    );
    expect(textOf(open.params.view)).toContain('Checking');
    const viewId = String(open.answer?.view && (open.answer.view as { id: string }).id);
    return viewWhen(fakes.slack, viewId, (v) => v.callback_id === 'bulk_preview');
  };

  /** Presses Start on a retry's preview; resolves with the new job's progress message in the same DM. */
  const startRetry = async (preview: SlackView, entries: Record<string, string[]> = {}) => {
    const jobId = String(preview.private_metadata);
    await app().submitView(preview, entries);
    const posted = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => textOf(c.params.blocks).includes(`*Bulk job ${jobId}*`),
      10_000,
    );
    return { jobId, channel: String(posted.answer?.channel), ts: String(posted.answer?.ts), posted };
  };

  it('retries only the failed rows; the maybe-created ones are listed apart and left out unless chosen; nothing is sent twice', async () => {
    // u1 refused (400), u2 maybe created (500), u3 refused (400), u4-u6 created.
    const job = await endedJob(6, [400, 500, 400]);
    const before = progress(fakes.slack, job);
    expect(textOf(before.blocks)).toContain('*3 created* · 2 failed · 1 maybe created');
    expect(textOf(before.blocks)).toContain(
      '*1 maybe created*: sent, but the outcome was not recorded. It may exist: check it',
    );
    expect(textOf(before.blocks)).toContain(BULK.buttons.retry.actionId);
    const sentBefore = fakes.mint.requestsTo('create_link').length;

    const preview = await retryPreview(before);
    const text = textOf(preview.blocks);
    expect(text).toContain(`*Retry of ${job.jobId}*: 2 failed rows, *2 mint links ready to create*`);
    expect(text).toContain('NFT `nft-r`'); // the job's own defaults
    // The failed rows it sends again, with the error each got: refused for what they hold, they will likely fail again.
    expect(text).toContain(
      '*Failed, sent again*\n• Row 2 (u1@example.com): The Mint service answered 400: Mock failure 400\n' +
        '• Row 4 (u3@example.com): The Mint service answered 400: Mock failure 400\n' +
        ':warning: These rows were refused as they are (400, 404 or 422): sent again unchanged, they will likely fail again',
    );
    expect(text).toContain('fix the file and upload it as a new job with *Bulk create*');
    expect(text).toContain(`*1 maybe created*: ${job.jobId} sent this row, but the outcome was not recorded`);
    expect(text).toContain('• Row 3 (u2@example.com): The Mint service answered 500');
    expect(text).toContain(`Rows keep their numbers from the file of ${job.jobId}.`);
    const box = (preview.blocks as Array<Record<string, any>>).find((b) => b.block_id === HELD_ROWS_BLOCK);
    expect(box?.element).toMatchObject({ type: 'checkboxes' });
    expect(box?.element.initial_options).toBeUndefined(); // off unless the person ticks it
    expect(preview.submit).toMatchObject({ text: 'Start' });
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(sentBefore); // nothing sent before Start

    const retry = await startRetry(preview);
    expect(retry.channel).toBe(DM); // where the first job was followed, for the same person
    const { results } = await ended(fakes.slack, retry);
    expect(Object.fromEntries(sends())).toEqual({
      'u1@example.com': 2,
      'u2@example.com': 1, // maybe created: not again
      'u3@example.com': 2,
      'u4@example.com': 1,
      'u5@example.com': 1,
      'u6@example.com': 1,
    });
    expect(csvRows(results).map((r) => [r[0], r[1], r[2]])).toEqual([
      ['row', 'email', 'outcome'],
      ['2', 'u1@example.com', 'created'],
      ['4', 'u3@example.com', 'created'],
    ]);
    expect(fakes.mint.requestsTo('create_link').at(-1)?.body).toEqual({
      email: 'u3@example.com',
      nftId: 'nft-r',
      walletOptions: 'CUSTODIAL',
      type: 'GENERAL',
      isActive: true,
    });

    // The first job's message now says where its rows went, and offers the retry no more.
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, job).blocks).includes(`retried as *${retry.jobId}*`),
      5_000,
      'the retried job to name its retry',
    );
    expect(textOf(progress(fakes.slack, job).blocks)).not.toContain(BULK.buttons.retry.actionId);

    // A click on the button as it was (a message not yet updated on the person's screen): told, nothing sent.
    const url = await app().click(before, BULK.buttons.retry.actionId);
    const [answer] = await fakes.slack.waitForResponse(url);
    expect(answer?.body).toMatchObject({
      response_type: 'ephemeral',
      text: `:information_source: The failed rows of ${job.jobId} were already retried as ${retry.jobId}: its progress is in your DM with the app.`,
    });

    const store = app().openStore();
    try {
      const runs = await store.audit.list({ operation: 'bulk.run', limit: 2 });
      expect(runs[0]?.inputs).toMatchObject({
        jobId: retry.jobId,
        retryOf: job.jobId,
        maybeCreated: 1,
        maybeCreatedChosen: false,
      });
      expect(runs[0]?.outcome).toBe('succeeded'); // every row of the retry created
      // The first job had rows that failed or may have been created: it did not simply succeed.
      expect(runs[1]).toMatchObject({ inputs: { jobId: job.jobId }, outcome: 'done with failures' });
      expect(runs[1]?.detail).toContain('3 created, 2 failed, 1 maybe created, 0 cancelled, 0 invalid');
    } finally {
      await store.close();
    }
  }, 40_000);

  it('sends the maybe-created rows again only when the person ticks them; Start with nothing chosen says so inline', async () => {
    const job = await endedJob(3, [500]); // u1 maybe created; u2, u3 created
    const preview = await retryPreview(progress(fakes.slack, job));
    expect(textOf(preview.blocks)).toContain(
      `*Retry of ${job.jobId}*: no row failed for certain. The row below may have been created: check it with the Mint service, and tick it to send it again only if it was not.`,
    );
    expect(textOf(preview.blocks)).toContain('*1 maybe created*');
    expect(textOf(preview.blocks)).not.toContain('Failed, sent again');

    const refused = await app().submitView(preview);
    expect(refused).toEqual({
      response_action: 'errors',
      errors: { [HELD_ROWS_BLOCK]: 'Tick this box to retry this row, or close: no other row can be sent.' },
    });
    await app().waitForIdle();
    expect(sends().get('u1@example.com')).toBe(1);

    const retry = await startRetry(preview, { [HELD_ROWS_BLOCK]: [HELD_ROWS_CHOICE] });
    const { message } = await ended(fakes.slack, retry);
    expect(textOf(message.blocks)).toContain('*1 created* · 0 failed · 0 maybe created');
    expect(sends().get('u1@example.com')).toBe(2);
  }, 40_000);

  it('says which failed rows will likely fail again, and why the rows with errors in the file are not retried; Home says the job had failures', async () => {
    // u1 refused for a conflict (409: may pass later), u2 refused as it is (422), u3 created; row 5 never sent.
    fakes.mint.failNext('create_link', { mode: 'status', status: 409 }, 1);
    fakes.mint.failNext('create_link', { mode: 'status', status: 422 }, 1);
    const first = await previewOf(app(), fakes.slack, `${linkCsv(3)}\nnot-an-email`, { bulk_nft_id: 'nft-r' });
    const job = await start(app(), fakes.slack, first);
    await ended(fakes.slack, job);

    const preview = await retryPreview(progress(fakes.slack, job));
    const text = textOf(preview.blocks);
    expect(text).toContain(`*Retry of ${job.jobId}*: 2 failed rows, *2 mint links ready to create*`);
    expect(text).toContain(
      '*Failed, sent again*\n• Row 2 (u1@example.com): The Mint service answered 409: Mock failure 409\n' +
        '• Row 3 (u2@example.com): The Mint service answered 422: Mock failure 422\n' +
        ':warning: 1 of them was refused as it is (400, 404 or 422): sent again unchanged, it will likely fail again',
    );
    expect(text).toContain(
      `1 row of ${job.jobId} had errors in the file and is not retried: it was never sent. To send it, fix the file and upload it as a new job`,
    );

    // The job's owner reads on Home how the job ended: not simply done.
    const published = () => fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === TEST_USER_ID);
    const before = published().length;
    await app().event({ type: 'app_home_opened', user: TEST_USER_ID, channel: DM, tab: 'home' });
    await fakes.slack.waitFor(() => published().length > before, 5_000, 'the Home tab');
    expect(textOf(fakes.slack.view(TEST_USER_ID).blocks)).toContain(
      `Ran a bulk job ${job.jobId} · :warning: done with failures ·`,
    );
    await ended(fakes.slack, await startRetry(preview)); // no unstarted check left behind for the next test
  }, 40_000);

  it('answers a retry clicked twice with one preview of one retry, and a second Start with a note: one job', async () => {
    const job = await endedJob(3, [400]);
    const message = progress(fakes.slack, job);
    // The same click delivered twice (Slack's retry): one modal.
    const opened = fakes.slack.callsTo('views.open').length;
    const click = buttonClick(fakes.slack, message, BULK.buttons.retry.actionId);
    await app().interact(click);
    await app().interact(click);
    await app().waitForIdle();
    expect(fakes.slack.callsTo('views.open')).toHaveLength(opened + 1);
    // Two clicks (two payloads): the same retry, shown twice.
    const first = await retryPreview(message);
    const second = await retryPreview(message);
    expect(second.private_metadata).toBe(first.private_metadata);

    const retry = await startRetry(first);
    await app().submitView(second);
    await viewWhen(fakes.slack, second.id, (v) => textOf(v.blocks).includes('has already been started'));
    await ended(fakes.slack, retry);
    expect(sends().get('u1@example.com')).toBe(2); // once by the job, once by its one retry
  }, 40_000);

  it('refuses the retry to anyone but the job’s requester, and a job of another workspace', async () => {
    const job = await endedJob(2, [400]);
    const message = progress(fakes.slack, job);
    for (const userId of [STRANGER, APPROVER]) {
      const url = await app().click(message, BULK.buttons.retry.actionId, userId);
      const [answer] = await fakes.slack.waitForResponse(url);
      expect(answer?.body).toMatchObject({
        response_type: 'ephemeral',
        text: `:no_entry: Only <@${TEST_USER_ID}>, who started ${job.jobId}, can retry its failed rows: the new job would be theirs.`,
      });
    }
    // The same person and job id, signed as from another workspace: no such job there.
    const forged = inTeam(buttonClick(fakes.slack, message, BULK.buttons.retry.actionId), OTHER_TEAM_ID);
    await app().interact(forged);
    const [answer] = await fakes.slack.waitForResponse(String(forged.response_url));
    expect(answer?.body).toMatchObject({ response_type: 'ephemeral', text: NO_SUCH_JOB });
    await app().waitForIdle();
    const store = app().openStore();
    try {
      const drafts = await store.bulkJobs.list({ statuses: ['draft'] });
      expect(drafts.filter((draft) => draft.retryOf === job.jobId)).toEqual([]); // no retry checked for anyone
    } finally {
      await store.close();
    }
  }, 40_000);

  it('offers no retry on a job without failures, and says so to a stale or forged button', async () => {
    const job = await endedJob(2, []);
    const message = progress(fakes.slack, job);
    expect(textOf(message.blocks)).not.toContain(BULK.buttons.retry.actionId);
    // A stale or forged button on a job without failures.
    const url = await app().click(
      { ...message, blocks: [...(message.blocks ?? []), retryButton(job.jobId)] },
      BULK.buttons.retry.actionId,
    );
    const [answer] = await fakes.slack.waitForResponse(url);
    expect(answer?.body).toMatchObject({
      text: `:information_source: No row of ${job.jobId} failed: nothing to retry.`,
    });
  }, 40_000);
});

describe('bulk create: a retry that finds no free check slot', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { BULK_CHECK_SLOTS: '1', MINT_API_TIMEOUT_MS: '30000' },
    // The held download below gives up after this (15 s in the app): long enough for the click to find the slot
    // still held on a loaded machine. The test ends the download itself once its checks are done.
    fileDownloadDeadlineMs: 3_000,
  });

  it('is told "busy, press Retry failed rows again in a minute", and nothing is checked or sent', async () => {
    const app = running.app;
    fakes.mint.failNext('create_link', { mode: 'status', status: 400 }, 1);
    const preview = await previewOf(app, fakes.slack, linkCsv(2), { bulk_nft_id: 'nft-r' });
    const job = await start(app, fakes.slack, preview);
    await ended(fakes.slack, job);
    // A Check holds the only slot: Slack never finishes sending its file.
    const slow = { ...fakes.slack.hostFile({ content: linkCsv(2), name: 'slow.csv' }) };
    slow.url_private_download = fakes.slack.silentResponseUrl();
    const holding = (await app.commandOpeningModal('bulk')).view;
    await app.submitView(holding, { bulk_file: { files: [slow] } });
    await fakes.slack.waitFor(() => fakes.slack.silentRequestsOpen === 1, 5_000, 'the held download');

    const opened = fakes.slack.callsTo('views.open').length;
    const url = await app.click(progress(fakes.slack, job), BULK.buttons.retry.actionId);
    const [answer] = await fakes.slack.waitForResponse(url);
    expect(answer?.body).toMatchObject({
      response_type: 'ephemeral',
      text: ':hourglass: The app is checking other files right now. Nothing is lost: press *Retry failed rows* again in a minute.',
    });
    expect(fakes.slack.callsTo('views.open')).toHaveLength(opened); // no modal
    const store = app.openStore();
    try {
      expect((await store.bulkJobs.list({ statuses: ['draft'] })).filter((j) => j.retryOf)).toEqual([]);
    } finally {
      await store.close();
    }
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(2);
    // The checks are done: the held download ends now rather than at its deadline, which the app's stop would wait for.
    fakes.slack.answerSilentRequests();
    await app.waitForIdle();
  }, 40_000);
});

function retryButton(jobId: string): Record<string, unknown> {
  return {
    type: 'actions',
    block_id: 'stale',
    elements: [
      {
        type: 'button',
        action_id: BULK.buttons.retry.actionId,
        value: jobId,
        text: { type: 'plain_text', text: 'Retry' },
      },
    ],
  };
}
