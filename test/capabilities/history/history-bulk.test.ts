import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { HISTORY } from '../../../src/capabilities/history/actions.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { TRIGGER_TTL_MS } from '../../kit/fake-slack.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import { stableJobIds } from '../bulk/bulk-job-ids.js';
import { QUICK_BULK_PACE, ended, linkCsv, previewOf, start } from '../bulk/bulk-kit.js';

/*
 * History and bulk jobs, driven as Slack drives them: a job's row shows where the job stands now (its state and
 * counts, read with the page), each link it made is a row of its own that names the job, and the Details of
 * both. Then the first page read slowly: the modal opens in time with a placeholder, updated in place.
 * Golden screens under test/screens/history/.
 */

describe('history of bulk jobs', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { BULK_CONCURRENCY: '1' },
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  /** `/mintlink history <words>`: the modal as it opened. */
  async function openHistory(words = ''): Promise<SlackView> {
    const { fields } = await running.app.command(`history ${words}`.trim());
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    return fakes.slack.lastOpenedView();
  }
  /** The Details buttons' values of a page, top to bottom. */
  const results = (view: SlackView) =>
    (view.blocks as Array<{ accessory?: { value?: string } }>).flatMap((b) =>
      b.accessory?.value ? [b.accessory.value] : [],
    );
  async function details(view: SlackView, value: string): Promise<Record<string, unknown>> {
    const pushes = () => fakes.slack.callsTo('views.push');
    const before = pushes().length;
    await running.app.clickOnHome(view, HISTORY.buttons.details.actionId, TEST_USER_ID, value);
    await fakes.slack.waitFor(() => pushes().length > before, 3_000, 'details');
    return pushes().at(-1)?.params.view as Record<string, unknown>;
  }
  const screen = (view: Record<string, unknown>) => stableJobIds(modalText(view));

  it('shows a job’s state and counts as they are now, and each link it made as a row that names the job', async () => {
    // The first row fails (one row at a time: row 2, u1@example.com); its answer waits: the job is seen sending.
    fakes.mint.failNext('create_link', { mode: 'status', status: 400, body: { message: 'nftId unknown' } }, 1);
    let answer: () => void = () => undefined;
    fakes.mint.holdAnswers = new Promise<void>((resolve) => (answer = resolve));
    const preview = await previewOf(running.app, fakes.slack, `${linkCsv(3)}\nnot-an-email`, {
      bulk_nft_id: 'nft-spring',
    });
    const job = await start(running.app, fakes.slack, preview);
    await fakes.slack.waitFor(() => fakes.mint.inFlight > 0, 5_000, 'the first row sent');

    const sending = await openHistory(job.jobId);
    expect(results(sending)).toHaveLength(1); // the job: no link made yet
    expect(textOf(sending)).toMatch(/_Running_ · 3 left to send, 1 with errors in the file \(not sent\)/);

    fakes.mint.holdAnswers = undefined;
    answer();
    await ended(fakes.slack, job);

    const list = await openHistory(job.jobId);
    await expectScreen('history/modal--bulk-job', screen(list));
    expect(textOf(list)).toContain('_Finished_ · 2 created, 1 failed, 1 with errors in the file (not sent)');
    const [firstLink, , jobRow] = results(list);
    expect(results(list)).toHaveLength(3); // the two links it made, then the job (made first)
    expect(jobRow).toMatch(/^[0-9a-f-]{36}$/); // the job's audit entry

    await expectScreen('history/details--bulk-job', screen(await details(list, jobRow ?? '')));
    const link = await details(list, firstLink ?? '');
    await expectScreen('history/details--bulk-link', screen(link));
    expect(textOf(link)).toContain(`with bulk job \`${job.jobId}\` (row`);

    // Found by its own words, as a link made with the form is.
    const made = fakes.mint.links.find((l) => l.email === 'u3@example.com');
    const byEmail = await openHistory('u3@example.com');
    expect(results(byEmail)).toHaveLength(1);
    expect(textOf(byEmail)).toContain(String(made?.url));
    expect(textOf(byEmail)).toContain(`with bulk job \`${job.jobId}\``);
  });

  it('opens in time with a placeholder when the first page is slow, and shows the page in place once read', async () => {
    const store = running.app.openStore();
    const read = store.history.page.bind(store.history);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const page = vi.spyOn(store.history, 'page').mockImplementation(async (query) => {
      asked += 1;
      await held;
      return read(query);
    });
    try {
      // Slack answers views.open late as well: the update waits for the view's id, whichever comes first.
      let openAnswered: () => void = () => undefined;
      fakes.slack.answerNext('views.open', { until: new Promise<void>((resolve) => (openAnswered = resolve)) });
      const updates = fakes.slack.callsTo('views.update').length;
      const sentAt = Date.now();
      const { fields } = await running.app.command('history nft-slow');
      const open = await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
      expect(open.at - sentAt).toBeLessThan(TRIGGER_TTL_MS); // the fake refuses a later one too
      expect(asked).toBe(1);
      const placeholder = open.params.view as Record<string, unknown>;
      await expectScreen('history/modal--loading', modalText(placeholder));
      release();
      await fakes.slack.waitFor(() => page.mock.results.some((r) => r.type === 'return'), 3_000, 'the page read');
      expect(fakes.slack.callsTo('views.update').length).toBe(updates); // nothing to update before Slack answers
      openAnswered();
      const viewId = await fakes.slack.waitFor(() => (open.answer?.view as { id?: string } | undefined)?.id);
      const shown = await fakes.slack.viewUpdate(viewId);
      expect(textOf(shown)).toContain('matching `nft-slow`');
      expect(textOf(shown)).toContain('Nothing found');
    } finally {
      page.mockRestore();
      release();
    }
  });
});
