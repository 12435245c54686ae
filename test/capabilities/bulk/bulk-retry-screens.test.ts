import { afterEach, describe, expect, it } from 'vitest';
import { HELD_ROWS_BLOCK } from '../../../src/capabilities/bulk/bulk-views.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { ephemeralText, messageText, modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import type { PostedMessage, SlackView } from '../../kit/slack-payloads.js';
import { stableJobIds } from './bulk-job-ids.js';
import { DM, ended, linkCsv, previewOf, progress, start, viewWhen, QUICK_BULK_PACE } from './bulk-kit.js';
import { BULK } from '../../../src/capabilities/bulk/actions.js';

/*
 * What a person sees of the sample CSV files and of "Retry failed rows": the form once the samples are sent,
 * the messages they come with, a retry's preview, its inline answer, the retried job's message and the
 * refusals. Golden screens under test/screens/bulk/.
 */

const BEN = 'U0BEN0001';

describe('bulk sample and retry screens', () => {
  const fakes = useFakes();
  // One row at a time, so which row meets which answer of the Mint service is the same on every run.
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { BULK_CONCURRENCY: '1', DELETION_APPROVERS: BEN },
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  const endedJob = async (rows: number, statuses: number[]) => {
    for (const status of statuses) fakes.mint.failNext('create_link', { mode: 'status', status }, 1);
    const preview = await previewOf(running.app, fakes.slack, linkCsv(rows), { bulk_nft_id: 'nft-gold' });
    const job = await start(running.app, fakes.slack, preview);
    await ended(fakes.slack, job);
    return job;
  };

  const retryPreview = async (message: PostedMessage): Promise<SlackView> => {
    const opened = fakes.slack.callsTo('views.open').length;
    await running.app.click(message, BULK.buttons.retry.actionId);
    const open = await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open')[opened], 5_000, 'the modal');
    const viewId = String((open.answer?.view as { id: string }).id);
    return viewWhen(fakes.slack, viewId, (v) => v.callback_id === 'bulk_preview');
  };

  it('the form once the sample files are sent, and the messages they come with', async () => {
    const { view } = await running.app.commandOpeningModal('bulk');
    await running.app.clickInView(view, BULK.buttons.sampleCsv.actionId);
    await viewWhen(fakes.slack, view.id, (v) => textOf(v.blocks).includes('are in your DM'));
    // Not stabilized: the form holds no generated id, and its help's example date (2030-01-31T09:00:00Z) is a
    // fixed text that the kit would otherwise move as if it were a time near now.
    await expectScreen('bulk/bulk-form--sample-sent', modalScreen(fakes.slack, view.id, { stable: false }));
    const intros = await fakes.slack.waitFor(
      () => {
        const posted = fakes.slack.callsTo('chat.postMessage').filter((c) => c.answer?.channel === DM);
        return posted.length === 2 ? posted : undefined;
      },
      5_000,
      'the two introductions',
    );
    await expectScreen('bulk/sample-dm--links', messageText(intros[0]?.params ?? {}, { where: 'DM' }));
    await expectScreen('bulk/sample-dm--wallets', messageText(intros[1]?.params ?? {}, { where: 'DM' }));
  });

  it('a retry’s preview with a maybe-created row; the retried job’s message; the refusals', async () => {
    const job = await endedJob(5, [400, 500, 400]);
    const before = progress(fakes.slack, job);
    const preview = await retryPreview(before);
    await expectScreen('bulk/retry-preview--maybe-created', stableJobIds(modalText(preview)));

    const url = await running.app.click(before, BULK.buttons.retry.actionId, BEN);
    const [notOwner] = await fakes.slack.waitForResponse(url);
    await expectScreen(
      'bulk/retry-click--not-the-owner',
      stableJobIds(ephemeralText(notOwner?.body ?? {}, { viewer: BEN })),
    );

    const retryId = String(preview.private_metadata);
    await running.app.submitView(preview);
    const posted = await fakes.slack.waitForCall('chat.postMessage', (c) =>
      textOf(c.params.blocks).includes(`*Bulk job ${retryId}*`),
    );
    await fakes.slack.waitFor(
      () => textOf(progress(fakes.slack, job).blocks).includes('retried as'),
      5_000,
      'the retried job to name its retry',
    );
    await expectScreen(
      'bulk/progress--retried',
      stableJobIds(messageText(progress(fakes.slack, job), { where: 'DM' })),
    );
    const again = await running.app.click(before, BULK.buttons.retry.actionId);
    const [retried] = await fakes.slack.waitForResponse(again);
    await expectScreen('bulk/retry-click--already-retried', stableJobIds(ephemeralText(retried?.body ?? {})));
    // The retry's rows are all sent before the next test tells the service which requests to fail: one of them
    // would otherwise take the next test's failure.
    await ended(fakes.slack, {
      jobId: retryId,
      channel: String(posted.answer?.channel),
      ts: String(posted.answer?.ts),
    });
  });

  it('a retry of maybe-created rows only, started with none ticked', async () => {
    const job = await endedJob(2, [500]);
    const preview = await retryPreview(progress(fakes.slack, job));
    const ack = await running.app.submitView(preview);
    expect(ack).toMatchObject({ response_action: 'errors', errors: { [HELD_ROWS_BLOCK]: expect.any(String) } });
    await expectScreen('bulk/retry-preview--nothing-chosen', stableJobIds(modalScreen(fakes.slack, preview.id)));
  });
});
