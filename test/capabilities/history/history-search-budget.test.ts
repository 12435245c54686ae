import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HISTORY } from '../../../src/capabilities/history/actions.js';
import { SEARCH_BLOCKS as B } from '../../../src/capabilities/history/history-modal.js';
import type { Store } from '../../../src/platform/store/store.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';

/*
 * History's search within its budget of rows examined (HISTORY_SCAN_ROWS, 8 here): two words common but seldom
 * on one row stop a page before it fills; the modal shows what was found, says how far back it searched, and
 * Keep searching goes on from there in place, only for whose page it is.
 */

const ANN = 'U0ALICE01'; // no rights: her own rows
const BOB = 'U0EVE0001';
const VERA = 'U0DAN0001'; // audit viewer: sees everything
const HOUR = 3_600_000;
// Far enough from now that goldens show them as typed (see test/kit/screen-text.ts).
const BASE = Date.UTC(2024, 2, 4, 9, 0, 0);

type View = { id: string; hash: string; private_metadata?: string; [key: string]: unknown };

describe('history search within its budget', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { AUDIT_VIEWERS: VERA, HISTORY_SCAN_ROWS: '8' } });
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  let hour = 0;
  /** A link made an hour after the one before, as runAudited records one. */
  async function link(store: Store, actorId: string, fields: Record<string, unknown>) {
    hour += 1;
    const entry = await store.audit.start(
      {
        actorId,
        teamId: TEST_TEAM_ID,
        operation: 'link.create',
        inputs: { walletOptions: 'CUSTODIAL', ...fields },
        history: { kind: 'link', how: 'form', link: { walletOptions: 'CUSTODIAL', ...fields } },
      },
      new Date(BASE + hour * HOUR),
    );
    await store.audit.complete(entry.id, 'succeeded', `https://mint.example/l/lnk_${hour}`);
    return entry.id;
  }

  /**
   * Ann's links of NFT `nft-a` and of customer `cus_b`, oldest first: 20 of the customer alone (so the search
   * starts from the NFT's 19 rows), then the NFT's, newest last: 3 alone, 2 with both, 2 alone, 2 alone... so that
   * 8 rows at a time (newest first) hold 1, then 2, then no rows with both words.
   */
  async function seed(): Promise<string[]> {
    const store = running.app.openStore();
    hour = 0;
    await store.history.pruneBatch(new Date(Date.now() + HOUR), 100_000);
    for (let i = 0; i < 20; i += 1)
      await link(store, ANN, { customerId: [`cus_b`], nftId: `nft-c${i}`, email: 'ann@example.com' });
    // The NFT's rows, oldest first: read newest first, 8 at a time, they are [1 both, 7 alone], [4 alone,
    // 2 both, 2 alone], [3 alone].
    const plan = [
      'a',
      'a',
      'a',
      'a',
      'a',
      'both',
      'both',
      'a',
      'a',
      'a',
      'a',
      'a',
      'a',
      'a',
      'a',
      'a',
      'a',
      'a',
      'both',
    ];
    const both: string[] = [];
    for (const step of plan) {
      const id = await link(
        store,
        ANN,
        step === 'both' ? { nftId: 'nft-a', customerId: ['cus_b'] } : { nftId: 'nft-a' },
      );
      if (step === 'both') both.push(id);
    }
    return both.reverse();
  }

  async function openHistory(user: string, words = ''): Promise<View> {
    const { fields } = await running.app.command(`history ${words}`.trim(), { user_id: user });
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    return fakes.slack.lastOpenedView();
  }
  const resultsOf = (view: View) =>
    (view.blocks as Array<{ accessory?: { value?: string } }>).flatMap((b) =>
      b.accessory?.value ? [b.accessory.value] : [],
    );
  const keepSearching = (view: View) =>
    (view.blocks as Array<{ accessory?: { action_id?: string } }>).some(
      (b) => b.accessory?.action_id === HISTORY.buttons.keepSearching.actionId,
    );
  /** Keep searching clicked on the modal as shown: the modal as it is updated. */
  async function goOn(view: View, user: string): Promise<View> {
    const updates = fakes.slack.callsTo('views.update').length;
    await running.app.clickInView(view, HISTORY.buttons.keepSearching.actionId, {}, user);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.update').length > updates, 3_000, 'the search going on');
    return fakes.slack.view(view.id);
  }

  it('shows what it found when the budget runs out, and Keep searching finds the rows further back, in place', async () => {
    const both = await seed();
    const first = await openHistory(VERA, 'nft-a cus_b');
    expect(resultsOf(first)).toEqual([both[0]]);
    expect(textOf(first)).toContain('Searched back to');
    expect(keepSearching(first)).toBe(true);
    await expectScreen('history/modal--searched-back', modalText(first, { viewer: VERA }));

    const second = await goOn(first, VERA);
    expect(resultsOf(second)).toEqual([both[1], both[2]]);
    expect(textOf(second)).toContain('results 2–3');
    expect(keepSearching(second)).toBe(true);
    // Previous from the rows found further back reads toward the newer ones: the 8 rows newer than the second
    // page's first hold no match, so it reads on until it is back on the page the person came from.
    const updates = fakes.slack.callsTo('views.update').length;
    await running.app.clickInView(second, HISTORY.buttons.previous.actionId, {}, VERA);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.update').length > updates, 3_000, 'the page before');
    const back = fakes.slack.view(first.id) as View;
    expect(resultsOf(back)).toEqual([both[0]]);
    expect(textOf(back)).toContain('result 1, newest first');
    expect(textOf(back)).not.toContain('Searched forward to');
    expect(keepSearching(back)).toBe(false);
    expect(fakes.slack.callsTo('views.update').length).toBe(updates + 1); // one update: no empty page between
    // Keep searching from the rows found further back: to the end, nothing more.
    const again = await goOn(await openHistory(VERA, 'nft-a cus_b'), VERA);
    expect(resultsOf(again)).toEqual([both[1], both[2]]);
    const third = await goOn(again, VERA);
    expect(resultsOf(third)).toEqual([]);
    expect(textOf(third)).toContain('Searched to the end: nothing more matches.');
    expect(keepSearching(third)).toBe(false);
  });

  it('stops the Search button’s search too, and says nothing matched once it has searched everything', async () => {
    await seed();
    const view = await openHistory(ANN);
    // The NFT and the e-mail of her other links: never on one row.
    const ack = await running.app.submitView(view, { [B.words]: 'nft-a example.com' }, ANN);
    const shown = (ack as { view: View }).view;
    expect(resultsOf(shown)).toEqual([]);
    expect(textOf(shown)).toContain('nothing found yet');
    expect(keepSearching(shown)).toBe(true);
    // The modal as Slack shows it once updated by the answer.
    const further = await goOn(fakes.slack.view(view.id), ANN);
    expect(textOf(further)).toContain('nothing found yet');
    // Her page reads two ranges (her rows, the requests asked of her), 4 rows each a time: 19 rows, 5 pages.
    let end = further;
    for (let turn = 0; turn < 10 && keepSearching(end); turn += 1) end = await goOn(end, ANN);
    expect(resultsOf(end)).toEqual([]);
    expect(textOf(end)).toContain('Nothing found');
    expect(keepSearching(end)).toBe(false);
  });

  it('refuses a forged Keep searching: another workspace, another person, another person’s rows', async () => {
    await seed();
    const view = await openHistory(ANN, 'nft-a cus_b');
    expect(keepSearching(view)).toBe(true);
    const state = JSON.parse(view.private_metadata ?? '{}') as Record<string, unknown>;
    const forged = (changes: Record<string, unknown>) => ({
      ...view,
      private_metadata: JSON.stringify({ ...state, ...changes }),
    });
    const refusal = async (shown: View, user: string) => {
      const updates = fakes.slack.callsTo('views.update').length;
      await running.app.clickInView(shown, HISTORY.buttons.keepSearching.actionId, {}, user);
      await fakes.slack.waitFor(() => fakes.slack.callsTo('views.update').length > updates, 3_000, 'a refusal');
      return textOf(fakes.slack.view(view.id));
    };
    expect(await refusal(forged({ team: 'T0OTHER01' }), ANN)).toContain('another workspace');
    expect(await refusal(forged({}), BOB)).toContain('someone else’s');
    expect(await refusal(forged({ filters: { ...(state.filters as object), who: BOB } }), ANN)).toContain(
      'only what you made',
    );
    expect(await refusal(forged({ stopped: undefined }), ANN)).toContain('This History window no longer works');
    expect(await refusal(forged({ stopped: { at: { madeAt: 'x', id: 'y' }, toward: 'sideways' } }), ANN)).toContain(
      'This History window no longer works',
    );
  });
});
