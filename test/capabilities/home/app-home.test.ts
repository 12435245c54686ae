import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELETIONS } from '../../../src/capabilities/deletions/actions.js';
import { REASON_BLOCK } from '../../../src/capabilities/deletions/deletion-request-form.js';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from '../../kit/app-process.js';
import type { ListenerApp } from '../../kit/listener-app.js';
import { viewProblems } from '../../kit/block-kit-limits.js';
import { useFakes } from '../../kit/fakes.js';
import { runSql } from '../../kit/raw-sql.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';
import { WALLETS } from '../../../src/capabilities/wallets/actions.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';

const APPROVAL = 'C0APPROVE';
const ALICE = 'U0ALICE01'; // plain user, asks for deletions
const BOB = 'U0APPROV1'; // approver

describe('App Home', () => {
  const fakes = useFakes();
  let app: ListenerApp;

  beforeAll(async () => {
    // A file: the tests write to it as another replica would.
    const env = { APPROVAL_CHANNEL_ID: APPROVAL, DELETION_APPROVERS: BOB, DATABASE_URL: sqliteDatabase().databaseUrl };
    app = await fakes.startListenerApp({ env });
  });
  afterAll(async () => app?.stop());
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  /** The user opens their Home tab; resolves with the view the app published. */
  /**
   * Opens `user`'s Home and returns it once published, `showing` a text when given: a refresh started by an
   * earlier change may publish first, built before what the test just did.
   */
  async function openHome(user: string, showing?: string) {
    const published = fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user).length;
    await app.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
    await fakes.slack.waitFor(
      () => fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user).length > published,
      5_000,
      `the Home of ${user}`,
    );
    if (showing)
      await fakes.slack.waitFor(
        () => textOf(fakes.slack.view(user)).includes(showing),
        5_000,
        `the Home of ${user} showing ${showing}`,
      );
    return fakes.slack.view(user);
  }

  async function requestDeletion(ids: string) {
    for (const id of ids.split(' ')) fakes.mint.customers.add(id); // customers the Mint service has
    const { view } = await app.commandOpeningModal(`delete ${ids}`, { user_id: ALICE });
    await app.submitView(view, { [REASON_BLOCK]: 'cleanup' }, ALICE);
    const post = await fakes.slack.waitForCall(
      'chat.postMessage',
      (c) => c.params.channel === APPROVAL && textOf(c.params.blocks).includes(ids.split(' ')[0] ?? ''),
    );
    return { id: /DR-[A-Z0-9]{6}/.exec(textOf(post.params.blocks))?.[0] ?? '', ts: String(post.answer?.ts) };
  }

  it('shows a plain user the flows, their activity and the status, but no approvals', async () => {
    const home = await openHome(ALICE);
    expect(viewProblems(home)).toEqual([]);
    const text = textOf(home);
    for (const label of ['Create mint link', 'Create wallet', 'Request deletion', 'Browse templates'])
      expect(text).toContain(label);
    expect(text).not.toContain('Waiting for your approval');
    expect(text).toContain('*Your recent activity*');
    // How the app reaches Slack means nothing to its users: the status says how the Mint service answers.
    expect(text).toContain('*Status* · Mint service:');
    expect(text).not.toMatch(/Socket Mode|HTTP mode/);
    // Alice is no audit viewer: a button that only leads to a refusal is not shown to her.
    expect(text).not.toContain('Export audit log');
    expect(text).toContain(`Customer deletion: requests wait in <#${APPROVAL}>, approvers <@${BOB}>`);
    for (const secret of [fakes.slack.botToken, fakes.slack.appToken, TEST_SIGNING_SECRET, TEST_MINT_API_KEY])
      expect(text).not.toContain(secret);
  });

  it('opens the same forms as the commands from its buttons', async () => {
    const home = await openHome(ALICE);
    for (const [action, callbackId] of [
      [LINKS.buttons.createFromHome.actionId, 'link_form'],
      [WALLETS.buttons.createFromHome.actionId, 'wallet_form'],
      [DELETIONS.buttons.requestFromHome.actionId, 'deletion_request_form'],
      [TEMPLATES.buttons.browseFromHome.actionId, 'browse_templates_form'],
    ] as const) {
      const opened = fakes.slack.callsTo('views.open').length;
      await app.clickOnHome(home, action, ALICE);
      await fakes.slack.waitFor(
        () => fakes.slack.callsTo('views.open').length > opened,
        3_000,
        `the form of ${action}`,
      );
      expect(fakes.slack.lastOpenedView().callback_id).toBe(callbackId);
    }
  });

  it('lists what waits for an approver and what the requester asked, and refreshes both after a decision from Home', async () => {
    const { id, ts } = await requestDeletion('cus_home_1 cus_home_2');
    const aliceHome = await openHome(ALICE, `*${id}*`);
    expect(textOf(aliceHome)).toContain('*Your requests waiting for approval* (1)');
    expect(textOf(aliceHome)).toContain(`*${id}*`);
    const bobHome = await openHome(BOB, `*${id}*`);
    expect(textOf(bobHome)).toMatch(/\*Waiting for your approval\* \(\d+\)/);
    expect(textOf(bobHome)).toContain(`*${id}* · <@${ALICE}> asks to delete *2 customers*`);

    const opened = fakes.slack.callsTo('views.open').length;
    await app.clickOnHome(bobHome, DELETIONS.buttons.approve.actionId, BOB, id);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the approval modal');
    await app.submitView(fakes.slack.lastOpenedView(), {}, BOB);
    await fakes.slack.waitFor(
      () => textOf(fakes.slack.message(APPROVAL, ts)).includes('*Deleted* 2 customers'),
      5_000,
      'the approval message',
    );
    expect(fakes.mint.requestsTo('delete_customers').map((r) => r.body)).toEqual([['cus_home_1', 'cus_home_2']]);

    await fakes.slack.waitFor(
      () => !textOf(fakes.slack.view(BOB)).includes(`*${id}*`),
      5_000,
      "the approver's Home to drop the request",
    );
    await fakes.slack.waitFor(
      () => !textOf(fakes.slack.view(ALICE)).includes('*Your requests waiting for approval*'),
      5_000,
      "the requester's Home to drop it",
    );
    expect(textOf(fakes.slack.view(BOB))).toContain(`Approved a customer deletion ${id}`);
  });

  it('lets the requester cancel from Home, through the same path as the DM button', async () => {
    const { id, ts } = await requestDeletion('cus_cancel_home');
    const home = await openHome(ALICE, `*${id}*`);
    await app.clickOnHome(home, DELETIONS.buttons.cancel.actionId, ALICE, id);
    await fakes.slack.waitFor(
      () => textOf(fakes.slack.message(APPROVAL, ts)).includes('*Cancelled* by the requester'),
      5_000,
      'the cancellation',
    );
    expect(fakes.mint.requestsTo('delete_customers')).toEqual([]);
  });

  /** Every publish for `user` was built on the version the previous one left on screen. */
  function expectPublishesChained(user: string) {
    const publishes = fakes.slack.callsTo('views.publish').filter((c) => c.params.user_id === user && c.answer?.ok);
    for (const [i, publish] of publishes.entries()) {
      if (i > 0)
        expect(publish.params.hash).toBe((publishes[i - 1]?.answer?.view as { hash?: string } | undefined)?.hash);
    }
    return publishes.length;
  }

  it("shows a created link in the creator's recent activity, refreshing Home on top of the version on screen", async () => {
    await openHome(ALICE);
    const { view } = await app.commandOpeningModal('link', { user_id: ALICE });
    await app.submitView(view, { [LINK_BLOCKS.nftId]: 'nft-home' }, ALICE);
    await fakes.slack.waitFor(
      () => textOf(fakes.slack.view(ALICE)).includes('for NFT `nft-home`'),
      5_000,
      'the refreshed Home',
    );
    expect(expectPublishesChained(ALICE)).toBeGreaterThanOrEqual(2);
    expect(textOf(fakes.slack.view(ALICE))).toContain(`<${String(fakes.mint.links[0]?.url)}|open the link>`);
  });

  /** Waits until background refreshes of earlier steps are done (they count as work in flight). */
  async function settled() {
    await app.waitForIdle();
  }

  /** Another replica publishes Alice's Home; `recorded`: it also stores the hash, as this app does. */
  async function anotherReplicaPublishes(recorded: boolean) {
    await openHome(ALICE);
    await settled();
    const other = await new WebClient(fakes.slack.botToken, { slackApiUrl: fakes.slack.apiUrl }).views.publish({
      user_id: ALICE,
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'another replica' } }] },
    });
    if (recorded)
      await runSql(app.env.DATABASE_URL ?? '', 'update home_tabs set hash = ?, published_at = ? where user_id = ?', [
        other.view?.hash,
        new Date().toISOString(),
        ALICE,
      ]);
    const calls = fakes.slack.callsTo('views.publish').length;
    const { view } = await app.commandOpeningModal('wallet', { user_id: ALICE });
    await app.submitView(view, {}, ALICE);
    await fakes.slack.waitFor(
      () => textOf(fakes.slack.view(ALICE)).includes('Created a wallet'),
      5_000,
      'the refreshed Home',
    );
    return {
      otherHash: other.view?.hash,
      publishes: fakes.slack
        .callsTo('views.publish')
        .slice(calls)
        .filter((c) => c.params.user_id === ALICE),
    };
  }

  it('builds a refresh on top of the version another replica published', async () => {
    const { otherHash, publishes } = await anotherReplicaPublishes(true);
    expect(publishes.map((c) => [c.params.hash, c.answer?.ok])).toEqual([[otherHash, true]]);
  });

  it('never lets an older update replace a newer one: on hash_conflict it builds again from fresh data', async () => {
    const { otherHash, publishes } = await anotherReplicaPublishes(false);
    expect(publishes[0]?.answer?.error).toBe('hash_conflict'); // the other version was protected
    expect(publishes.every((c) => c.params.hash !== otherHash)).toBe(true);
    expect(publishes.at(-1)?.answer?.ok).toBe(true); // and the app caught up, with data read after the conflict
    // The refused publish was the point of this test.
    fakes.slack.calls.splice(
      0,
      fakes.slack.calls.length,
      ...fakes.slack.calls.filter((c) => c.answer?.error !== 'hash_conflict'),
    );
  });

  it('stays within Block Kit limits with 200 pending requests, the rest one click away', async () => {
    const store = app.openStore();
    try {
      for (let i = 0; i < 200; i += 1) {
        await store.deletionRequests.create({
          teamId: 'T0TEST001',
          requesterId: 'U0CAROL03',
          customerIds: [`c${i}`, `d${i}`],
          duplicatesRemoved: 0,
          reason: `bulk ${i} ${'x'.repeat(300)}`,
          ttlMs: 3_600_000,
          approvalsNeeded: 1,
          approvers: { users: [BOB], userGroups: [] }, // as opened: Bob decides them
        });
      }
    } finally {
      await store.close();
    }
    const home = await openHome(BOB);
    expect(viewProblems(home)).toEqual([]);
    expect((home.blocks as unknown[]).length).toBeLessThanOrEqual(100);
    expect(textOf(home)).toMatch(/\*Waiting for your approval\* \(2\d\d\)/);
    expect(textOf(home).match(/deletion_approve/g)).toHaveLength(5);

    const opened = fakes.slack.callsTo('views.open').length;
    await app.clickOnHome(home, DELETIONS.buttons.allApprovals.actionId, BOB);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.open').length > opened, 3_000, 'the full list');
    const list = fakes.slack.lastOpenedView();
    expect(viewProblems(list)).toEqual([]);
    expect(textOf(list).match(/<@U0CAROL03> asks to delete \*2 customers\*/g)).toHaveLength(200); // all of them fit
  });
});
