import { afterEach, describe, expect, it } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import { BUSY, checkCsv, linkCsv, previewOf, viewWhen } from './bulk-kit.js';

const B = BULK_BLOCKS;

/**
 * A download Slack never finishes is given up after this (15 s in the app): long enough for the test's second
 * Check to find the slot still held on a loaded machine (it checks that it was), short enough not to wait long.
 */
const DOWNLOAD_DEADLINE_MS = 3_000;

/* Bulk Checks bounded in number (a slot each) and drafts capped per person. (Their memory bound: bulk-check-bounds.e2e.test.ts.) */
describe('bulk create: a Check that finds no free slot', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    env: { BULK_CHECK_SLOTS: '1' },
    fileDownloadDeadlineMs: DOWNLOAD_DEADLINE_MS,
  });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  it('is told "busy, try again in a minute" on the form, which stays as filled, and goes through once a slot is free', async () => {
    const app = running.app;
    // The first Check holds the only slot: Slack never finishes sending its file.
    const slow = { ...fakes.slack.hostFile({ content: linkCsv(2), name: 'slow.csv' }) };
    slow.url_private_download = fakes.slack.silentResponseUrl();
    const holding = (await app.commandOpeningModal('bulk')).view;
    expect(await app.submitView(holding, { [B.file]: { files: [slow] } })).toMatchObject({ response_action: 'update' });
    await fakes.slack.waitFor(() => fakes.slack.silentRequestsOpen === 1, 5_000, 'the held download');

    const form = (await app.commandOpeningModal('bulk')).view;
    const entries = { [B.paste]: linkCsv(2), [B.nftId]: 'nft-kept' };
    const busy = await app.submitView(form, entries);
    expect(busy).toEqual({ response_action: 'errors', errors: { [B.paste]: BUSY } });
    // The form is not replaced (what the person typed stays), and nothing was read or stored for it.
    expect(fakes.slack.calls.filter((c) => c.method === 'views.update' && c.params.view_id === form.id)).toEqual([]);
    expect(fakes.slack.view(form.id).callback_id).toBe('bulk_form');
    const store = app.openStore();
    try {
      expect(await store.bulkJobs.list({ statuses: ['draft'] })).toEqual([]);
    } finally {
      await store.close();
    }

    // The held download gives up (after the deadline), the slot comes back, and the same form goes through.
    const failed = await viewWhen(
      fakes.slack,
      holding.id,
      (v) => textOf(v.blocks).includes('no answer in time'),
      DOWNLOAD_DEADLINE_MS + 10_000,
    );
    expect(failed.callback_id).toBe('bulk_form');
    const { next } = await checkCsv(app, fakes.slack, entries);
    expect(next.callback_id).toBe('bulk_preview');
    expect(textOf(next.blocks)).toContain('NFT `nft-kept`');
  });
});

describe('bulk create: unstarted checks kept per person', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  it('keeps the newest three: a fourth drops the oldest, says so, and that one can no longer be started', async () => {
    const app = running.app;
    const previews: SlackView[] = [];
    for (let i = 1; i <= 3; i += 1) {
      const file = fakes.slack.hostFile({ content: linkCsv(2, i * 10), name: `batch-${i}.csv` });
      const { next } = await checkCsv(app, fakes.slack, { [B.file]: { files: [file] }, [B.nftId]: 'n' });
      expect(textOf(next.blocks)).not.toContain('To make room');
      previews.push(next);
    }
    const fourth = await previewOf(app, fakes.slack, linkCsv(2, 40), { [B.nftId]: 'n' });
    const oldest = String(previews[0]?.private_metadata);
    expect(textOf(fourth.blocks)).toMatch(
      new RegExp(
        `:wastebasket: To make room, your oldest unstarted check was dropped: ${oldest} \\(\\*batch-1\\.csv\\*, checked <!date\\^\\d+\\^[^>]+>\\); it can no longer be started\\. You keep your 3 newest checks until you start them \\(for a day at most\\)\\.`,
      ),
    );

    const store = app.openStore();
    try {
      const drafts = await store.bulkJobs.list({ statuses: ['draft'] });
      expect(drafts.map((j) => j.sourceName).sort()).toEqual(['batch-2.csv', 'batch-3.csv', 'pasted text']);
    } finally {
      await store.close();
    }
    // Start on the dropped one's preview (still open somewhere) says why nothing happens.
    await app.submitView(previews[0] as SlackView, {});
    const notice = await viewWhen(fakes.slack, String(previews[0]?.id), (v) => textOf(v.blocks).includes('no longer'));
    expect(textOf(notice.blocks)).toContain(
      'This check no longer exists: unstarted checks are kept for a day, and only your 3 newest. Submit the file again.',
    );
    expect(fakes.mint.requests).toEqual([]);
  });
});
