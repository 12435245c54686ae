import { afterEach, describe, expect, it } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import type { RunningApp } from '../../kit/running-app.js';
import { useApp, useAppProcess, useFakes, type Fakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import type { Entry } from '../../kit/view-state.js';
import { checkCsv, linkCsv, previewOf, viewWhen } from './bulk-kit.js';

const B = BULK_BLOCKS;

/** What a Check that finds every check slot taken is told, on the form itself. */
const BUSY = 'The app is checking other files right now. Nothing is lost: press Check again in a minute.';

/**
 * The shape that exhausted the heap: 2 MB of 5,000 rows of 138 one-letter cells (under the file size limit,
 * but 690,000 strings once read), under a header the app knows.
 */
function worstShapeCsv(): string {
  const row = Array.from({ length: 138 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(2)).join(',');
  const csv = ['email', ...Array.from({ length: 5_000 }, () => row)].join('\n');
  expect(csv.length).toBeGreaterThan(2_000_000);
  expect(csv.length).toBeLessThanOrEqual(2 * 1024 * 1024);
  return csv;
}

/** The heaviest table the app takes: 2 MB, 5,000 rows, every link column filled. */
function heaviestAcceptedCsv(): string {
  const header = 'email,customerId,maxCheckoutQuantity,walletOptions,startDate,endDate,nftId,type,isActive';
  const rows = Array.from(
    { length: 5_000 },
    (_, i) =>
      `user${i}.${'x'.repeat(50)}@example.com,${Array.from({ length: 5 }, (__, j) => `cus_${i}_${j}`).join(';')},3,CUSTODIAL,` +
      `2031-01-01T00:00:00Z,2031-12-31T00:00:00Z,nft-${'n'.repeat(190)}-${i},GENERAL,true`,
  );
  const csv = [header, ...rows].join('\n');
  expect(csv.length).toBeGreaterThan(1_900_000);
  expect(csv.length).toBeLessThanOrEqual(2 * 1024 * 1024);
  return csv;
}

type Outcome = 'busy' | 'too big' | 'preview' | 'other';

/**
 * Opens `count` Bulk create forms one after the other, then submits them all at once with `entries`, as
 * many people (or one scripted client) pressing Check together; resolves with how each ended.
 */
async function checkAtOnce(app: RunningApp, fakes: Fakes, count: number, entries: Record<string, Entry>) {
  const forms: SlackView[] = [];
  for (let i = 0; i < count; i += 1) forms.push((await app.commandOpeningModal('bulk')).view);
  const acks = await Promise.all(forms.map((form) => app.submitView(form, entries)));
  return Promise.all(
    forms.map(async (form, i): Promise<{ outcome: Outcome; text: string }> => {
      const ack = acks[i];
      if (ack?.response_action === 'errors') {
        const errors = ack.errors as Record<string, string>;
        return { outcome: Object.values(errors).includes(BUSY) ? 'busy' : 'other', text: JSON.stringify(errors) };
      }
      const view = await viewWhen(fakes.slack, form.id, (v) => !JSON.stringify(v).includes('Checking'), 60_000);
      const text = textOf(view.blocks);
      if (view.callback_id === 'bulk_preview') return { outcome: 'preview', text };
      if (view.callback_id === 'bulk_form' && text.includes('It is too big to check'))
        return { outcome: 'too big', text };
      return { outcome: 'other', text };
    }),
  );
}

const tally = (outcomes: Array<{ outcome: Outcome }>) =>
  outcomes.reduce<Record<string, number>>((n, o) => ({ ...n, [o.outcome]: (n[o.outcome] ?? 0) + 1 }), {});

/* Bulk Checks are bounded like exports: a few at a time, each within a memory bound, drafts capped per person. */
describe('bulk create: Checks bounded in number and memory', () => {
  const fakes = useFakes();
  const running = useAppProcess(fakes, 'http');
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  it('survives 20 concurrent worst-shape Checks under 300 MB: each is refused as too big or busy, and the app goes on', async () => {
    const app = running.app;
    const idle = app.rssMb;
    const worst = fakes.slack.hostFile({ content: worstShapeCsv(), name: 'worst.csv' });
    const first = await checkAtOnce(app, fakes, 20, { [B.file]: { files: [worst] } });
    const heavy = fakes.slack.hostFile({ content: heaviestAcceptedCsv(), name: 'heavy.csv' });
    const second = await checkAtOnce(app, fakes, 20, { [B.file]: { files: [heavy] } });
    const peak = app.peakRssMb;
    process.stdout.write(
      `20 worst-shape Checks: ${JSON.stringify(tally(first))}; 20 heaviest accepted: ${JSON.stringify(tally(second))}; ` +
        `RSS ${idle.toFixed(0)} MB idle, ${peak.toFixed(0)} MB at the peak\n`,
    );

    // Every worst-shape Check ends in a clear refusal: busy, or too big naming the limit (never a crash, a
    // stuck "Checking…" or a preview of a table that was not read whole).
    expect(first.filter((o) => o.outcome !== 'busy' && o.outcome !== 'too big')).toEqual([]);
    expect(tally(first)['too big']).toBeGreaterThanOrEqual(1);
    const tooBig = first.find((o) => o.outcome === 'too big');
    expect(tooBig?.text).toMatch(
      /It is too big to check: a check reads at most 8 MB of table \(64 bytes a row, 32 a value and 2 a character\), and this file passes that at row [\d,]+, which has 138 values/,
    );
    // The heaviest table within the limits is previewed, or turned away as busy.
    expect(second.filter((o) => o.outcome !== 'busy' && o.outcome !== 'preview')).toEqual([]);
    expect(tally(second).preview).toBeGreaterThanOrEqual(1);
    expect(second.find((o) => o.outcome === 'preview')?.text).toContain(
      '5,000 rows, *5,000 mint links ready to create*',
    );

    expect(peak).toBeLessThan(300);
    // Still up and answering: a small Check goes through.
    const preview = await previewOf(app, fakes.slack, linkCsv(3), { [B.nftId]: 'n' });
    expect(textOf(preview.blocks)).toContain('3 mint links ready to create');
    expect(app.logLines.filter((l) => l.level === 'fatal' || /heap/i.test(String(l.msg)))).toEqual([]);
  }, 180_000);
});

describe('bulk create: a Check that finds no free slot', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: { BULK_CHECK_SLOTS: '1' } });
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

    // The held download gives up (15 s), the slot comes back, and the same form goes through.
    const failed = await viewWhen(
      fakes.slack,
      holding.id,
      (v) => textOf(v.blocks).includes('no answer in time'),
      25_000,
    );
    expect(failed.callback_id).toBe('bulk_form');
    const { next } = await checkCsv(app, fakes.slack, entries);
    expect(next.callback_id).toBe('bulk_preview');
    expect(textOf(next.blocks)).toContain('NFT `nft-kept`');
  }, 45_000);
});

describe('bulk create: unstarted checks kept per person', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http');
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
