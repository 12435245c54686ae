import { afterEach, describe, expect, it } from 'vitest';
import { BULK_BLOCKS } from '../../../src/capabilities/bulk/bulk-form.js';
import type { RunningApp } from '../../kit/running-app.js';
import { useAppProcess, useFakes, type Fakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import type { SlackView } from '../../kit/slack-payloads.js';
import type { Entry } from '../../kit/view-state.js';
import { BUSY, linkCsv, previewOf, viewWhen } from './bulk-kit.js';

const B = BULK_BLOCKS;

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

/*
 * Bulk Checks are bounded like exports: a few at a time, each within a memory bound, in a process of its own
 * (its memory is the point). The busy answer and the drafts kept per person: bulk-check-bounds.test.ts.
 */
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
