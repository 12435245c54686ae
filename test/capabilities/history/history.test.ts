import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { HISTORY } from '../../../src/capabilities/history/actions.js';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { PAGE_SIZE, SEARCH_BLOCKS as B } from '../../../src/capabilities/history/history-modal.js';
import type { LinkMade } from '../../../src/platform/store/history/entry.js';
import type { Store } from '../../../src/platform/store/store.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { viewProblems } from '../../kit/block-kit-limits.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { SettingsFlow } from '../../kit/settings-flow.js';
import { expectNoRejectedSlackCalls, expectNoSecretsLeaked, textOf } from '../../kit/slack-checks.js';
import { TEST_TEAM_ID } from '../../kit/slack-ids.js';

/*
 * History in Slack, driven as Slack drives it: `/mintlink history [words]` and Home's button open the modal,
 * Search / Previous / Next update it in place, Details pushes a result's story. Each role's view, and forged
 * pages refused. Golden screens under test/screens/history/.
 */

// The sandbox's people (their names and time zones are what the goldens show).
const ANN = 'U0ALICE01'; // makes links; no rights
const BOB = 'U0EVE0001'; // makes links, wallets, deletion requests; no rights
const VERA = 'U0DAN0001'; // audit viewer: sees everything
const AMOS = 'U0BEN0001'; // deletion approver: own rows and the deletion requests asked of him
const OWEN = 'U0CHLOE01'; // a workspace admin (Slack says so): sees everything
const GRACE = 'U0GRACE01'; // in a user group one deletion request was asked of
const HOUR = 3_600_000;
// Far enough from now that goldens show them as typed (see test/kit/screen-text.ts).
const BASE = Date.UTC(2024, 2, 4, 9, 0, 0);

type View = { id: string; hash: string; private_metadata?: string; [key: string]: unknown };

describe('history', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, {
    env: {
      APPROVAL_CHANNEL_ID: 'C0APPROVE1',
      DELETION_APPROVERS: AMOS,
      AUDIT_VIEWERS: VERA,
    },
    // People's names are read from Slack within a tick, not every minute.
    quickenedJobs: { 'history names from Slack': 100 },
  });
  const homes = new SettingsFlow(fakes);
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  let seq = 0;
  /** A link as runAudited records one: pending, then succeeded with its URL. */
  async function link(store: Store, actorId: string, fields: LinkMade, at: number) {
    seq += 1;
    const request = { walletOptions: 'CUSTODIAL', ...fields };
    const entry = await store.audit.start(
      {
        actorId,
        teamId: TEST_TEAM_ID,
        operation: 'link.create',
        inputs: request,
        history: { kind: 'link', how: 'form', link: request },
      },
      new Date(at),
    );
    await store.audit.complete(entry.id, 'succeeded', `https://mint.example/l/lnk_${seq}`);
    return entry.id;
  }
  async function deletion(
    store: Store,
    requesterId: string,
    customerIds: string[],
    approvers: { users: string[]; userGroups: string[] } = { users: [AMOS], userGroups: [] },
  ) {
    return store.transaction(async (tx) => {
      const request = await tx.deletionRequests.create({
        teamId: TEST_TEAM_ID,
        requesterId,
        customerIds,
        duplicatesRemoved: 0,
        reason: 'Asked to be forgotten',
        ttlMs: 72 * HOUR,
        approvalsNeeded: 1,
        approvers,
      });
      await tx.audit.start(
        {
          actorId: requesterId,
          teamId: TEST_TEAM_ID,
          operation: 'customers.delete.request',
          inputs: { requestId: request.id, customerIds, reason: request.reason },
          detail: request.id,
          history: {
            kind: 'deletion',
            how: 'form',
            requestId: request.id,
            customerIds,
            reason: request.reason,
            context: undefined,
          },
        },
        new Date(BASE + 50 * HOUR),
      );
      return request;
    });
  }
  /** Ann's 12 links, Bob's link and wallet, Bob's deletion request, and a link of another workspace. */
  async function seed() {
    const store = running.app.openStore();
    // The app (and its database) serves every test of the file: each starts from an empty History.
    seq = 0;
    await store.history.pruneBatch(new Date(Date.now() + HOUR), 100_000);
    for (let i = 0; i < 12; i += 1)
      await link(store, ANN, { nftId: `nft-${i}`, customerId: [`cus_${1000 + i}`] }, BASE + i * HOUR);
    await link(store, BOB, { nftId: 'nft-42', email: 'ann@example.com', customerId: ['cus_1002'] }, BASE + 20 * HOUR);
    const wallet = await store.audit.start(
      {
        actorId: BOB,
        teamId: TEST_TEAM_ID,
        operation: 'wallet.create',
        inputs: { userId: 'cus_1002' },
        history: { kind: 'wallet', how: 'form', customerId: 'cus_1002' },
      },
      new Date(BASE + 30 * HOUR),
    );
    await store.audit.complete(wallet.id, 'succeeded', 'wallet for customer cus_1002');
    const request = await deletion(store, BOB, ['cus_1002', 'cus_77']);
    await link(store, ANN, { nftId: 'nft-42' }, BASE + 40 * HOUR).then(async () => {
      await store.audit.start(
        {
          actorId: ANN,
          teamId: 'T0OTHER01',
          operation: 'link.create',
          inputs: { nftId: 'nft-42' },
          history: { kind: 'link', how: 'form', link: { nftId: 'nft-42' } },
        },
        new Date(BASE + 45 * HOUR),
      );
    });
    return { request };
  }

  /** `/mintlink history <words>` as `user`: the modal once it shows its first page. */
  async function openHistory(user: string, words = ''): Promise<View> {
    const { fields } = await running.app.command(`history ${words}`.trim(), { user_id: user });
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    return fakes.slack.lastOpenedView();
  }
  const lines = (view: Record<string, unknown>) => textOf(view);
  const resultsOf = (view: View) =>
    (view.blocks as Array<{ accessory?: { value?: string } }>).flatMap((b) =>
      b.accessory?.value ? [b.accessory.value] : [],
    );

  it('opens with the newest page of what the viewer may see, and pages both ways in place', async () => {
    await seed();
    const first = await openHistory(VERA);
    await expectScreen('history/modal--first-page', modalText(first, { viewer: VERA }));
    expect(lines(first)).toContain('nft-42');
    // A full page: a divider between every two results, so that one's lines do not run into the next one's.
    const shape = (first.blocks as Array<{ type: string; accessory?: unknown }>).map((b) =>
      b.accessory ? 'result' : b.type,
    );
    const results = shape.slice(shape.indexOf('result'), shape.lastIndexOf('result') + 1);
    expect(results).toEqual(['result', ...Array.from({ length: PAGE_SIZE - 1 }, () => ['divider', 'result']).flat()]);
    expect(viewProblems(first)).toEqual([]);
    await running.app.clickInView(first, HISTORY.buttons.next.actionId, {}, VERA);
    const second = await fakes.slack.viewUpdate(first.id);
    expect(textOf(second)).toContain('11–16');
    expect(second.blocks.some((b: { type: string }) => b.type === 'actions')).toBe(true);
    await expectScreen('history/modal--second-page', modalText(second, { viewer: VERA }));
    const shown = fakes.slack.view(first.id) as View;
    const updates = fakes.slack.callsTo('views.update').length;
    await running.app.clickInView(shown, HISTORY.buttons.previous.actionId, {}, VERA);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.update').length > updates, 3_000, 'the first page');
    expect((fakes.slack.view(first.id) as View).blocks).toEqual(first.blocks);
  });

  it('opens already searching for the words given, and finds by every kind of word', async () => {
    const { request } = await seed();
    const filtered = await openHistory(VERA, 'nft-42');
    await expectScreen('history/modal--filtered', modalText(filtered, { viewer: VERA }));
    const found = async (words: string) => {
      const view = await openHistory(VERA, words);
      return (view.blocks as Array<{ accessory?: { value?: string } }>).filter((b) => b.accessory?.value).length;
    };
    expect(await found('NFT-42')).toBe(2);
    expect(await found('cus_1002')).toBe(4); // Bob's link, wallet and deletion request; Ann's link of cus_1002
    expect(await found('cus_1002 nft-42')).toBe(1);
    expect(await found('<mailto:ann@example.com|ann@example.com>')).toBe(1);
    expect(await found('example.com')).toBe(1);
    expect(await found('lnk_3')).toBe(1);
    expect(await found('https://mint.example/l/lnk_13')).toBe(1);
    expect(await found(request.id.toLowerCase())).toBe(1);
    await expectScreen('history/modal--empty', modalText(await openHistory(VERA, 'no-such-nft'), { viewer: VERA }));
  });

  it('searches with the form: words, kind, who and days, in place', async () => {
    await seed();
    const view = await openHistory(VERA);
    const ack = await running.app.submitView(
      view,
      { [B.words]: 'cus_1002', [B.kind]: 'wallet', [B.who]: BOB, [B.from]: '2024-03-06', [B.to]: '2024-03-06' },
      VERA,
    );
    const shown = (ack as { view: View }).view;
    expect(textOf(shown)).toContain('Wallet');
    expect((shown.blocks as Array<{ accessory?: unknown }>).filter((b) => b.accessory)).toHaveLength(1);
    // The chosen days read as the results' dates do (the pickers keep their ISO value); one day as one.
    expect(textOf(shown)).toContain('on Mar 6, 2024');
    expect(textOf(shown)).not.toContain('to Mar 6, 2024');
    const twoDays = await running.app.submitView(view, { [B.from]: '2024-03-05', [B.to]: '2024-03-06' }, VERA);
    expect(textOf((twoDays as { view: View }).view)).toContain('from Mar 5, 2024, to Mar 6, 2024');
    const days = await running.app.submitView(view, { [B.from]: '2024-03-05', [B.to]: '2024-03-04' }, VERA);
    expect(days).toMatchObject({ response_action: 'errors', errors: { [B.to]: expect.stringContaining('before') } });
  });

  it('shows each role what it may see', async () => {
    const { request } = await seed();
    const resultsOf = (view: View) =>
      (view.blocks as Array<{ accessory?: { value?: string } }>).filter((b) => b.accessory?.value).length;
    const ann = await openHistory(ANN, 'nft-42');
    expect(resultsOf(ann)).toBe(1); // her own link only, not Bob's
    expect(textOf(ann)).toContain('What you made through the app');
    const bob = await openHistory(BOB, 'cus_1002');
    expect(resultsOf(bob)).toBe(3);
    const amos = await openHistory(AMOS, 'cus_1002');
    expect(resultsOf(amos)).toBe(1); // the deletion request he decides
    expect(textOf(amos)).toContain(request.id);
    fakes.slack.workspaceAdmins.add(OWEN);
    expect(resultsOf(await openHistory(OWEN, 'cus_1002'))).toBe(4);
    expect(resultsOf(await openHistory(VERA, 'cus_1002'))).toBe(4);
    // Someone without rights cannot ask for another person's rows.
    const form = await openHistory(ANN);
    const refused = await running.app.submitView(form, { [B.who]: BOB }, ANN);
    expect(refused).toMatchObject({
      response_action: 'errors',
      errors: { [B.who]: expect.stringContaining('only what you made') },
    });
    // Home shows the button to everyone, and it opens the same modal.
    const home = await homes.home(running.app, ANN);
    expect(textOf(home)).toContain('History');
    const opened = fakes.slack.callsTo('views.open').length;
    await running.app.clickOnHome(home, HISTORY.buttons.openFromHome.actionId, ANN);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'History from Home');
    expect(resultsOf(fakes.slack.lastOpenedView())).toBe(10);
  });

  it('shows an approver only the deletion requests asked of them, by name or through a user group', async () => {
    const { request } = await seed();
    const store = running.app.openStore();
    fakes.slack.userGroups.set('S0OPS', [GRACE]);
    // Asked of Owen and of the group Grace is in; not of Amos, who approves in the settings in force.
    const other = await deletion(store, BOB, ['cus_1002', 'cus_88'], { users: [OWEN], userGroups: ['S0OPS'] });
    const amos = await openHistory(AMOS, 'cus_1002');
    expect(resultsOf(amos)).toHaveLength(1);
    expect(textOf(amos)).toContain(request.id);
    expect(textOf(amos)).not.toContain(other.id);
    expect(textOf(amos)).toContain('the deletion requests you were asked to decide');
    const grace = await openHistory(GRACE, 'cus_1002');
    expect(resultsOf(grace)).toHaveLength(1);
    expect(textOf(grace)).toContain(other.id);
    expect(textOf(grace)).not.toContain(request.id);

    // Amos clicks Details with the id of the request he was not asked (a forged value): refused.
    const found = await store.history.page({
      teamId: TEST_TEAM_ID,
      viewer: { everything: true },
      words: [other.id.toLowerCase()],
      limit: 1,
    });
    const otherRow = found.items[0]?.id ?? '';
    expect(resultsOf(grace)).toContain(otherRow);
    const before = fakes.slack.callsTo('views.push').length;
    const forged: View = { ...amos, blocks: grace.blocks };
    await running.app.clickOnHome(forged, HISTORY.buttons.details.actionId, AMOS, otherRow);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.push').length > before, 3_000, 'details');
    const pushed = fakes.slack.callsTo('views.push').at(-1)?.params.view as Record<string, unknown>;
    expect(textOf(pushed)).toContain('no such result that you may see');
    expect(textOf(pushed)).not.toContain(other.id);
  });

  it('finds a person’s rows by their name in Slack, beside rows whose words match', async () => {
    await seed();
    const store = running.app.openStore();
    // The names job reads the makers' names from Slack (users.info) in the background.
    await vi.waitFor(
      async () =>
        expect(await store.historyPeople.peopleNamed(TEST_TEAM_ID, ['novak'])).toEqual(new Map([['novak', [BOB]]])),
      { timeout: 5_000 },
    );
    const bob = await openHistory(VERA, 'Novak');
    expect(resultsOf(bob)).toHaveLength(3); // Eve Novak's link, wallet and deletion request
    expect(resultsOf(await openHistory(VERA, 'martin nft-42'))).toHaveLength(1); // Alice Martin's, not Eve's
    expect(resultsOf(await openHistory(VERA, 'alice'))).toHaveLength(10); // a page of her 13
    expect(resultsOf(await openHistory(ANN, 'novak'))).toHaveLength(0); // Ann does not see Eve's rows
  });

  it('refuses too many words and one-letter words, in the form and from the command, saying what to do', async () => {
    const view = await openHistory(VERA);
    const letters = await running.app.submitView(view, { [B.words]: 'ann z' }, VERA);
    expect(letters).toMatchObject({
      response_action: 'errors',
      errors: {
        [B.words]:
          'Each word needs at least 2 characters; leave out “z”. A word matches a whole id, e-mail or link, or part of the name of who made it, or approved or rejected it.',
      },
    });
    const many = await running.app.submitView(view, { [B.words]: 'n1 n2 n3 n4 n5 n6 n7 n8 n9' }, VERA);
    expect(many).toMatchObject({
      response_action: 'errors',
      errors: { [B.words]: expect.stringContaining('Use at most 8 words (you typed 9)') },
    });
    const { ack, fields } = await running.app.command('history a b c d e f g h i j k', { user_id: VERA });
    expect(ack).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('Use at most 8 words (you typed 11)'),
    });
    expect(fakes.slack.calls.filter((c) => c.params.trigger_id === fields.trigger_id)).toEqual([]);
  });

  it('refuses a forged page: another workspace, another person, or another person’s rows', async () => {
    await seed();
    const view = await openHistory(ANN);
    const state = JSON.parse(view.private_metadata ?? '{}') as Record<string, unknown>;
    const forged = (changes: Record<string, unknown>) => ({
      ...view,
      private_metadata: JSON.stringify({ ...state, ...changes }),
    });

    await running.app.clickInView(forged({ team: 'T0OTHER01' }), HISTORY.buttons.next.actionId, {}, ANN);
    const refusedTeam = await fakes.slack.viewUpdate(view.id);
    await expectScreen('history/modal--refused-other-workspace', modalText(refusedTeam, { viewer: ANN }));

    const updates = () => fakes.slack.callsTo('views.update').length;
    let before = updates();
    await running.app.clickInView(forged({}), HISTORY.buttons.next.actionId, {}, BOB);
    await fakes.slack.waitFor(() => updates() > before, 3_000, 'a refusal');
    expect(textOf(fakes.slack.view(view.id))).toContain('someone else’s');

    before = updates();
    const filters = { ...(state.filters as object), who: BOB };
    await running.app.clickInView(forged({ filters }), HISTORY.buttons.next.actionId, {}, ANN);
    await fakes.slack.waitFor(() => updates() > before, 3_000, 'a refusal');
    expect(textOf(fakes.slack.view(view.id))).toContain('only what you made');

    // A day that does not exist (only a forged view can hold one) is refused as a view the app did not write.
    before = updates();
    const impossible = { ...(state.filters as object), from: '2026-02-31' };
    await running.app.clickInView(forged({ filters: impossible }), HISTORY.buttons.next.actionId, {}, ANN);
    await fakes.slack.waitFor(() => updates() > before, 3_000, 'a refusal');
    expect(textOf(fakes.slack.view(view.id))).not.toContain('Something went wrong');

    // A "who" that is no Slack user id, or words the form would refuse, make a view the app did not write.
    for (const odd of [{ who: 'U0ALICE01 OR 1=1' }, { words: 'n1 n2 n3 n4 n5 n6 n7 n8 n9' }, { words: 'x' }]) {
      before = updates();
      const filters = { ...(state.filters as object), ...odd };
      await running.app.clickInView(forged({ filters }), HISTORY.buttons.next.actionId, {}, ANN);
      await fakes.slack.waitFor(() => updates() > before, 3_000, 'a refusal');
      expect(textOf(fakes.slack.view(view.id))).toContain('This History window no longer works');
    }

    // A search submitted on a forged view is refused too, before anything is read.
    const ack = await running.app.submitView(forged({ team: 'T0OTHER01' }), {}, ANN);
    expect(textOf(ack)).toContain('another workspace');
  });

  it('shows a result’s details, and refuses those of rows the clicker may not see', async () => {
    const { request } = await seed();
    const store = running.app.openStore();
    await store.transaction((tx) => tx.deletionApprovals.approve(TEST_TEAM_ID, request.id, AMOS));
    const vera = await openHistory(VERA, 'cus_1002');
    const values = (vera.blocks as Array<{ accessory?: { value?: string } }>).flatMap((b) =>
      b.accessory?.value ? [b.accessory.value] : [],
    );
    const pushes = () => fakes.slack.callsTo('views.push');
    const details = async (view: View, value: string, user: string) => {
      const before = pushes().length;
      await running.app.clickOnHome(view, HISTORY.buttons.details.actionId, user, value);
      await fakes.slack.waitFor(() => pushes().length > before, 3_000, 'details');
      return pushes().at(-1)?.params.view as Record<string, unknown>;
    };
    const deletionView = await details(vera, values[0] ?? '', VERA);
    await expectScreen('history/details--deletion', modalText(deletionView, { viewer: VERA }));
    const walletView = await details(vera, values[1] ?? '', VERA);
    await expectScreen('history/details--wallet', modalText(walletView, { viewer: VERA }));
    const linkView = await details(vera, values[2] ?? '', VERA);
    await expectScreen('history/details--link', modalText(linkView, { viewer: VERA }));

    // Ann clicks Details with the id of Bob's link (a forged value): refused.
    const ann = await openHistory(ANN);
    const refusal = await details({ ...ann, blocks: vera.blocks }, values[2] ?? '', ANN);
    await expectScreen('history/details--refused', modalText(refusal, { viewer: ANN }));
  });

  it('says once, with when, that a request was cancelled: "you" to its requester, the requester to others', async () => {
    const store = running.app.openStore();
    const request = await deletion(store, BOB, ['cus_c1']);
    await store.deletionRequests.forTeam(TEST_TEAM_ID).cancel(request.id, BOB);
    const detailsOf = async (user: string) => {
      const list = await openHistory(user, request.id);
      const value = resultsOf(list)[0] ?? '';
      const before = fakes.slack.callsTo('views.push').length;
      await running.app.clickOnHome(list, HISTORY.buttons.details.actionId, user, value);
      await fakes.slack.waitFor(() => fakes.slack.callsTo('views.push').length > before, 3_000, 'details');
      return textOf(fakes.slack.callsTo('views.push').at(-1)?.params.view);
    };
    const toRequester = await detailsOf(BOB);
    expect(toRequester).toMatch(/\*You cancelled it\* <!date\^\d+\^/);
    expect(toRequester.match(/cancel/gi)).toHaveLength(1);
    const toAuditViewer = await detailsOf(VERA);
    expect(toAuditViewer).toMatch(/\*Cancelled\* by the requester <!date\^\d+\^/);
    expect(toAuditViewer.match(/cancel/gi)).toHaveLength(1);
  });

  it('shows what the link form made, with its URL, as soon as it is made', async () => {
    const { outcome } = await running.app.submitFormFromCommand('link', {
      [LINK_BLOCKS.nftId]: 'nft-from-form',
      [LINK_BLOCKS.email]: 'cy@example.com',
    });
    expect(textOf(outcome)).toContain('http');
    const view = await openHistory(ANN, 'nft-from-form');
    expect(textOf(view)).toContain('cy@example.com');
    expect(textOf(view)).toMatch(/https?:\/\//);
  });
});
