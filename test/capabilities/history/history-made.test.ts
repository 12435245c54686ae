import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HISTORY } from '../../../src/capabilities/history/actions.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { type HistoryItem } from '../../../src/platform/store/history/search.js';
import { searchWords } from '../../../src/platform/store/history/entry.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { userContext } from '../../kit/slack-payloads.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import { QUICK_BULK_PACE, ended, previewOf, start } from '../bulk/bulk-kit.js';

/*
 * Each way a link is made hands its History row to its audit entry (or, for a bulk row, to its settling): the
 * form, a workflow step and a bulk job's row each give a row found by the link's own words, saying how it was
 * made. A link that failed keeps why, and its Details say it in the words the form said it.
 */

describe('history rows of links, as each path makes them', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    bulkPace: QUICK_BULK_PACE,
    env: { BULK_CONCURRENCY: '1' },
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  /** The rows (as the person who made them sees them) that have every one of these words. */
  async function found(typed: string): Promise<HistoryItem[]> {
    const store = running.app.openStore();
    const viewer = { everything: false, userId: TEST_USER_ID, audiences: [`user:${TEST_USER_ID}`] } as const;
    const page = await store.history.page({ teamId: TEST_TEAM_ID, viewer, words: searchWords(typed), limit: 10 });
    return page.items;
  }
  /** The one row with every word of each of `typed`: the same row whichever words find it. */
  async function foundByEach(...typed: string[]): Promise<HistoryItem> {
    const rows = await Promise.all(typed.map((words) => found(words)));
    for (const [i, row] of rows.entries())
      expect(
        row.map((item) => item.id),
        typed[i],
      ).toHaveLength(1);
    const ids = new Set(rows.map((row) => row[0]?.id));
    expect(ids.size).toBe(1);
    const item = rows[0]?.[0];
    if (!item) throw new Error('no row found');
    return item;
  }
  const urlOf = (email: string) => String(fakes.mint.links.find((link) => link.email === email)?.url);
  const lastPath = (url: string) => url.slice(url.lastIndexOf('/') + 1);

  it('keeps a link made with the form, found by its NFT, customer, e-mail and URL', async () => {
    await running.app.submitFormFromCommand('link', {
      [LINK_BLOCKS.nftId]: 'nft-form-1',
      [LINK_BLOCKS.email]: 'form@example.com',
      [LINK_BLOCKS.customerIds]: 'cus_form_1',
    });
    const url = urlOf('form@example.com');
    const item = await foundByEach('nft-form-1', 'cus_form_1', 'form@example.com', url, lastPath(url));
    expect(item).toMatchObject({
      kind: 'link',
      how: 'form',
      outcome: 'succeeded',
      actorId: TEST_USER_ID,
      nftId: 'nft-form-1',
      email: 'form@example.com',
      customerIds: ['cus_form_1'],
      url,
    });
  });

  it('keeps a link made by a workflow step, made “with a workflow”', async () => {
    const id = await running.app.runStep(LINKS.steps.createLink.callbackId, {
      nft_id: 'nft-flow-1',
      wallet_option: 'CUSTODIAL',
      email: 'flow@example.com',
      customer_ids: ['cus_flow_1'],
      acting_user: userContext(),
    });
    expect((await fakes.slack.stepEnd(id)).state).toBe('completed');
    const url = urlOf('flow@example.com');
    const item = await foundByEach('nft-flow-1', 'cus_flow_1', 'flow@example.com', lastPath(url));
    expect(item).toMatchObject({ kind: 'link', how: 'workflow', outcome: 'succeeded', url });
  });

  it('keeps each link a bulk job made, found by its words and by its job', async () => {
    const preview = await previewOf(running.app, fakes.slack, 'email\nbulk1@example.com', {
      bulk_nft_id: 'nft-bulk-1',
    });
    const job = await start(running.app, fakes.slack, preview);
    await ended(fakes.slack, job);
    const url = urlOf('bulk1@example.com');
    // The job's id finds the job's own row too: with the link's e-mail, the link alone.
    const item = await foundByEach('bulk1@example.com nft-bulk-1', `${job.jobId} bulk1@example.com`, lastPath(url));
    expect((await found(job.jobId)).map((row) => row.kind)).toEqual(['link', 'bulk']);
    expect(item).toMatchObject({ kind: 'link', how: 'bulk', jobId: job.jobId, nftId: 'nft-bulk-1', url });
    expect(item.id).toBe(`${job.jobId}/2`);
  });

  it('keeps why a link failed, and says it in Details as the form did', async () => {
    fakes.mint.failNext('create_link', { mode: 'status', status: 400, body: { message: 'nftId unknown' } }, 1);
    const { outcome } = await running.app.submitFormFromCommand('link', { [LINK_BLOCKS.nftId]: 'nft-failed-1' });
    const said = textOf(outcome);
    expect(said).toContain('The Mint service rejected the request (HTTP 400). It said: “nftId unknown”');
    const [item] = await found('nft-failed-1');
    expect(item).toMatchObject({ outcome: 'failed', url: undefined });

    const { fields } = await running.app.command('history nft-failed-1');
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    const list = fakes.slack.lastOpenedView();
    const pushes = () => fakes.slack.callsTo('views.push');
    const before = pushes().length;
    await running.app.clickOnHome(list, HISTORY.buttons.details.actionId, TEST_USER_ID, item?.id);
    await fakes.slack.waitFor(() => pushes().length > before, 3_000, 'details');
    const details = pushes().at(-1)?.params.view as SlackView;
    await expectScreen('history/details--link-failed', modalText(details));
    expect(textOf(details)).toContain(
      ':x: *Could not create the mint link.* The Mint service rejected the request (HTTP 400). It said: “nftId unknown”',
    );
  });
});
