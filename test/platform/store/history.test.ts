import { beforeEach, expect, it } from 'vitest';
import { viewerAudiences, visibleResult } from '../../../src/capabilities/history/history-viewer.js';
import type { HistoryQuery, HistoryViewer } from '../../../src/platform/store/history/search.js';
import { type LinkMade, searchWords } from '../../../src/platform/store/history/entry.js';
import type { Store } from '../../../src/platform/store/store.js';
import type { AuditLogTable } from '../../../src/platform/store/tables.js';
import { seedAuditLog } from '../../kit/audit-seed.js';
import { describeEachEngine, type TestDatabase, useMigratedStore } from '../../kit/store-engines.js';

const HOUR = 3_600_000;
const EVERYTHING = { everything: true } as const;

describeEachEngine('history', (engine, create) => {
  const migrated = useMigratedStore(create);
  let db: TestDatabase;
  let store: Store;
  beforeEach(() => ({ db, store } = migrated));

  /** A link made the way runAudited makes one: started pending, then completed with its URL. */
  async function link(actorId: string, request: LinkMade, url = 'https://mint.example/l/lnk_1', at = new Date()) {
    const entry = await store.audit.start(
      {
        actorId,
        teamId: 'T1',
        operation: 'link.create',
        inputs: { ...request },
        history: { kind: 'link', how: 'form', link: request },
      },
      at,
    );
    await store.audit.complete(entry.id, 'succeeded', url);
    return entry.id;
  }
  const page = (query: Partial<HistoryQuery> = {}) =>
    store.history.page({ teamId: 'T1', viewer: EVERYTHING, limit: 10, ...query });
  const ids = async (query: Partial<HistoryQuery> = {}) => (await page(query)).items.map((item) => item.id);

  it('keeps a link with its audit entry: fields, URL once made, how it was made', async () => {
    const id = await link('U_ANN', {
      nftId: 'nft-42',
      email: 'Ann@Example.com',
      customerId: ['cus_1002', 'cus_7'],
      maxCheckoutQuantity: 3,
      walletOptions: 'CUSTODIAL',
      isActive: true,
    });
    const item = await store.history.get('T1', id);
    expect(item).toMatchObject({
      kind: 'link',
      actorId: 'U_ANN',
      how: 'form',
      outcome: 'succeeded',
      nftId: 'nft-42',
      email: 'Ann@Example.com',
      customerIds: ['cus_1002', 'cus_7'],
      url: 'https://mint.example/l/lnk_1',
      facts: { quantity: 3, active: true, walletOptions: 'CUSTODIAL' },
    });
    expect(await store.history.get('T2', id)).toBeUndefined();
  });

  it('finds a row by every kind of word, in any case and order, all words required', async () => {
    const made = await link('U_ANN', { nftId: 'nft-42', email: 'ann@example.com', customerId: ['cus_1002'] });
    const other = await link('U_BOB', { nftId: 'nft-43', customerId: ['cus_1003'] }, 'https://mint.example/l/lnk_2');
    const wallet = await store.audit.start({
      actorId: 'U_BOB',
      teamId: 'T1',
      operation: 'wallet.create',
      inputs: { userId: 'cus_1002' },
      history: { kind: 'wallet', how: 'form', customerId: 'cus_1002' },
    });
    const deletion = await store.transaction(async (tx) => {
      const request = await tx.deletionRequests.create({
        teamId: 'T1',
        requesterId: 'U_CAT',
        customerIds: ['cus_1002', 'cus_9'],
        duplicatesRemoved: 0,
        reason: 'GDPR',
        ttlMs: 72 * HOUR,
        approvalsNeeded: 1,
        approvers: { users: ['U_APP'], userGroups: [] },
      });
      const entry = await tx.audit.start({
        actorId: 'U_CAT',
        teamId: 'T1',
        operation: 'customers.delete.request',
        origin: 'workflow Wf123',
        inputs: { requestId: request.id, customerIds: request.customerIds, reason: 'GDPR' },
        detail: request.id,
        history: {
          kind: 'deletion',
          how: 'workflow',
          requestId: request.id,
          customerIds: request.customerIds,
          reason: 'GDPR',
          context: undefined,
        },
      });
      return { id: entry.id, requestId: request.id };
    });
    const bulk = await store.audit.start({
      actorId: 'U_DAN',
      teamId: 'T1',
      operation: 'bulk.run',
      inputs: {
        jobId: 'BK-ABC234',
        kind: 'links',
        source: 'spring.csv',
        rows: 5,
        valid: 4,
        defaults: { nftId: 'nft-42' },
      },
      history: {
        kind: 'bulk',
        job: { jobId: 'BK-ABC234', of: 'links', source: 'spring.csv', rows: 5, valid: 4, nftId: 'nft-42' },
      },
    });

    const search = (typed: string) => ids({ words: searchWords(typed) });
    expect(await search('NFT-42')).toEqual([bulk.id, made]);
    expect(await search('cus_1002')).toEqual([deletion.id, wallet.id, made]);
    expect(await search('ann@example.com')).toEqual([made]);
    expect(await search('<mailto:ann@example.com|ann@example.com>')).toEqual([made]);
    expect(await search('ann')).toEqual([made]);
    expect(await search('https://mint.example/l/lnk_2')).toEqual([other]);
    expect(await search('LNK_2')).toEqual([other]);
    expect(await search(deletion.requestId.toLowerCase())).toEqual([deletion.id]);
    expect(await search('bk-abc234')).toEqual([bulk.id]);
    expect(await search('cus_1002 nft-42')).toEqual([made]);
    expect(await search('nft-42 CUS_1002')).toEqual([made]);
    expect(await search('cus_1002 nft-43')).toEqual([]);
    expect(await search('nothing-like-it')).toEqual([]);
    // A word longer than any kept narrows to nothing; it never widens the search to the other words' rows.
    expect(await search(`nft-42 ${'z'.repeat(250)}`)).toEqual([]);
    expect(await search('x'.repeat(400))).toEqual([]);
    expect((await store.history.get('T1', deletion.id))?.how).toBe('workflow');
  });

  it('pages both ways by keyset, also through rows of one millisecond', async () => {
    const at = new Date('2026-11-20T10:00:00.000Z');
    const made: string[] = [];
    for (let i = 0; i < 25; i += 1)
      made.push(
        await link(
          'U_ANN',
          { nftId: `nft-${i}` },
          `https://mint.example/l/${i}`,
          i < 15 ? at : new Date(at.getTime() + i),
        ),
      );
    const newestFirst = [...made].reverse();
    const first = await page();
    expect(first.items.map((i) => i.id)).toEqual(newestFirst.slice(0, 10));
    expect(first.more).toBe(true);
    const cursorOf = (item: { madeAt: Date; id: string } | undefined) => ({
      madeAt: item?.madeAt.toISOString() ?? '',
      id: item?.id ?? '',
    });
    const second = await page({ direction: 'older', cursor: cursorOf(first.items.at(-1)) });
    expect(second.items.map((i) => i.id)).toEqual(newestFirst.slice(10, 20));
    const third = await page({ direction: 'older', cursor: cursorOf(second.items.at(-1)) });
    expect(third.items.map((i) => i.id)).toEqual(newestFirst.slice(20));
    expect(third.more).toBe(false);
    const back = await page({ direction: 'newer', cursor: cursorOf(third.items[0]) });
    expect(back.items.map((i) => i.id)).toEqual(newestFirst.slice(10, 20));
    expect(back.more).toBe(true);
    const home = await page({ direction: 'newer', cursor: cursorOf(back.items[0]) });
    expect(home.items.map((i) => i.id)).toEqual(newestFirst.slice(0, 10));
    expect(home.more).toBe(false);
  });

  it('stops a page at its budget of rows examined, and goes on from where it stopped', async () => {
    const at = Date.parse('2026-11-20T10:00:00.000Z');
    // Two old links with both words, then 20 newer ones each with one of them: common, never on one row.
    const both = [];
    for (let i = 0; i < 2; i += 1)
      both.push(await link('U_ANN', { nftId: 'nft-a', customerId: ['cus_b'] }, undefined, new Date(at + i)));
    for (let i = 0; i < 20; i += 1)
      await link('U_ANN', i % 2 ? { nftId: 'nft-a' } : { customerId: ['cus_b'] }, undefined, new Date(at + 100 + i));
    const words = ['nft-a', 'cus_b'];
    // A budget of 4: each page examines 4 rows of the starting word (12 rows: 10 alone, then the 2 with both).
    const first = await page({ words, budget: 4 });
    expect(first.items).toEqual([]);
    expect(first.more).toBe(false);
    expect(first.stoppedAt).toBeDefined();
    const second = await page({ words, budget: 4, direction: 'older', cursor: first.stoppedAt });
    expect(second.items).toEqual([]);
    expect(second.stoppedAt && second.stoppedAt.madeAt < (first.stoppedAt?.madeAt ?? '')).toBe(true);
    const third = await page({ words, budget: 4, direction: 'older', cursor: second.stoppedAt });
    expect(third.items.map((item) => item.id)).toEqual([...both].reverse());
    // The range ended with the rows examined: nothing is left to search.
    expect(third.stoppedAt).toBeUndefined();
    expect(third.more).toBe(false);
    // Toward the newer rows from the oldest match: the same budget, the same stops.
    const back = await page({
      words,
      budget: 4,
      direction: 'newer',
      cursor: { madeAt: new Date(at + 1).toISOString(), id: both[1] ?? '' },
    });
    expect(back.items).toEqual([]);
    expect(back.stoppedAt).toBeDefined();
    // Within the default budget the search reads them all at once.
    expect((await page({ words })).items.map((item) => item.id)).toEqual([...both].reverse());

    // A page that fills within its budget pages as before; one that does not keeps only what it has seen.
    const found = await page({ words, budget: 12, limit: 1 });
    expect(found.items.map((item) => item.id)).toEqual([both[1]]);
    expect(found.more).toBe(true);
    expect(found.stoppedAt).toBeUndefined();

    // The budget counts rows examined, not rows kept: a kind filtered within one person's rows stops too.
    const viewer = { everything: false, userId: 'U_ANN', audiences: [] };
    const wallets = await page({ viewer, kind: 'wallet', budget: 5 });
    expect(wallets.items).toEqual([]);
    expect(wallets.stoppedAt).toBeDefined();
    expect((await page({ viewer, kind: 'wallet' })).stoppedAt).toBeUndefined();
  });

  it('keeps to what the viewer may see, to the workspace, and to the filters', async () => {
    const ann = await link('U_ANN', { nftId: 'nft-1' }, undefined, new Date(Date.now() - 3 * HOUR));
    const bob = await link('U_BOB', { nftId: 'nft-1' });
    const elsewhere = await store.audit.start({
      actorId: 'U_ANN',
      teamId: 'T2',
      operation: 'link.create',
      inputs: { nftId: 'nft-1' },
      history: { kind: 'link', how: 'form', link: { nftId: 'nft-1' } },
    });
    const asked = await store.audit.start({
      actorId: 'U_BOB',
      teamId: 'T1',
      operation: 'customers.delete.request',
      inputs: { requestId: 'DR-AAAAAA', customerIds: ['c1'] },
      detail: 'DR-AAAAAA',
      history: {
        kind: 'deletion',
        how: 'form',
        requestId: 'DR-AAAAAA',
        customerIds: ['c1'],
        reason: undefined,
        context: undefined,
      },
    });
    await store.audit.record({
      actorId: 'U_ANN',
      teamId: 'T1',
      operation: 'settings.change',
      inputs: {},
      outcome: 'ok',
    });
    // The request has no recorded approvers (made before they were): the approvers in force are asked.
    const annOnly = { everything: false, userId: 'U_ANN', audiences: ['user:U_ANN'] } as const;
    const approver = {
      everything: false,
      userId: 'U_ANN',
      audiences: viewerAudiences({ userId: 'U_ANN', groups: [], approverInForce: true }),
    } as const;
    expect(await ids()).toEqual([asked.id, bob, ann]);
    expect(await ids({ viewer: annOnly })).toEqual([ann]);
    expect(await ids({ viewer: annOnly, words: ['nft-1'] })).toEqual([ann]);
    expect(await ids({ viewer: annOnly, actorId: 'U_BOB' })).toEqual([]);
    expect(await ids({ viewer: approver })).toEqual([asked.id, ann]);
    expect(await ids({ viewer: approver, actorId: 'U_BOB' })).toEqual([asked.id]);
    expect(await ids({ viewer: approver, kind: 'link' })).toEqual([ann]);
    expect(await ids({ kind: 'deletion' })).toEqual([asked.id]);
    expect(await ids({ actorId: 'U_BOB' })).toEqual([asked.id, bob]);
    expect(await ids({ from: new Date(Date.now() - HOUR) })).toEqual([asked.id, bob]);
    expect(await ids({ until: new Date(Date.now() - HOUR) })).toEqual([ann]);
    expect(await ids({ teamId: 'T2' })).toEqual([elsewhere.id]);
  });

  /** A deletion request asked of `approvers`, and its audit entry (and History row), as the deletions make one. */
  async function deletionAsked(
    requesterId: string,
    customerIds: string[],
    approvers: { users: string[]; userGroups: string[] },
    target = store,
  ) {
    return target.transaction(async (tx) => {
      const request = await tx.deletionRequests.create({
        teamId: 'T1',
        requesterId,
        customerIds,
        duplicatesRemoved: 0,
        reason: 'GDPR',
        ttlMs: 72 * HOUR,
        approvalsNeeded: 1,
        approvers,
      });
      const entry = await tx.audit.start({
        actorId: requesterId,
        teamId: 'T1',
        operation: 'customers.delete.request',
        inputs: { requestId: request.id, customerIds },
        detail: request.id,
        history: {
          kind: 'deletion',
          how: 'form',
          requestId: request.id,
          customerIds,
          reason: 'GDPR',
          context: undefined,
        },
      });
      return entry.id;
    });
  }
  const viewer = (userId: string, groups: string[] = [], approverInForce = false): HistoryViewer => ({
    everything: false,
    userId,
    audiences: viewerAudiences({ userId, groups, approverInForce }),
  });

  it('shows an approver only the deletion requests asked of them, by name or through a user group', async () => {
    const a = await deletionAsked('U_REQ', ['cus_a', 'cus_common'], { users: ['U_APP'], userGroups: [] });
    const b = await deletionAsked('U_REQ', ['cus_b', 'cus_common'], { users: ['U_OTHER'], userGroups: ['S_OPS'] });
    const own = await deletionAsked('U_APP', ['cus_common'], { users: ['U_OTHER'], userGroups: [] });
    const link1 = await link('U_REQ', { customerId: ['cus_common'] });

    expect(await store.history.askedGroups('T1')).toEqual(['S_OPS']);
    // Asked by name: A (and their own request), never B, with or without words, filtered or not.
    const app = viewer('U_APP');
    expect(await ids({ viewer: app })).toEqual([own, a]);
    expect(await ids({ viewer: app, words: ['cus_common'] })).toEqual([own, a]);
    expect(await ids({ viewer: app, words: ['cus_b'] })).toEqual([]);
    expect(await ids({ viewer: app, actorId: 'U_REQ' })).toEqual([a]);
    // A member of the group B was asked of: B only (approving in force now gives nothing more: both recorded theirs).
    const member = viewer('U_MEM', ['S_OPS'], true);
    expect(await ids({ viewer: member })).toEqual([b]);
    expect(await ids({ viewer: member, words: ['cus_common'] })).toEqual([b]);
    expect(await ids({ viewer: member, kind: 'link' })).toEqual([]);
    // Outside both: nothing of theirs.
    expect(await ids({ viewer: viewer('U_NONE', [], true) })).toEqual([]);
    expect(await ids()).toEqual([link1, own, b, a]);

    // Details by id: the row named is checked against the viewer, whatever the page said.
    expect((await visibleResult({ store }, 'T1', a, app))?.id).toBe(a);
    expect(await visibleResult({ store }, 'T1', b, app)).toBeUndefined();
    expect(await visibleResult({ store }, 'T1', link1, app)).toBeUndefined();
    expect((await visibleResult({ store }, 'T1', b, member))?.id).toBe(b);
    expect(await visibleResult({ store }, 'T2', b, member)).toBeUndefined();
    expect((await visibleResult({ store }, 'T1', b, EVERYTHING))?.id).toBe(b);
  });

  it('reads a word common among deletion requests from the viewer’s own requests, with the same answer', async () => {
    const mine: string[] = [];
    // More requests with the word than a search counts (commonCount, 2,000 in service), few of them asked of the
    // viewer.
    const commonCount = 20;
    await seedAuditLog(db.databaseUrl, commonCount + 5, (i) => ({
      id: `0000-${String(i).padStart(5, '0')}`,
      at: new Date(Date.UTC(2026, 9, 1, 0, 0, i)).toISOString(),
      team_id: 'T1',
      actor_id: 'U_OTHER',
      operation: 'customers.delete.request',
      inputs: JSON.stringify({ requestId: `DR-${i}`, customerIds: ['cus_common'] }),
      outcome: 'pending',
      detail: `DR-${i}`,
    }));
    while (!(await store.historyBackfill.backfillBatch(10)).finished);
    for (let i = 0; i < 3; i += 1)
      mine.push(await deletionAsked('U_REQ', ['cus_common'], { users: ['U_APP'], userGroups: [] }));
    const app = viewer('U_APP');
    const common = { viewer: app, words: ['cus_common'], commonCount };
    expect(await ids(common)).toEqual(mine.reverse());
    expect(await ids({ ...common, actorId: 'U_OTHER' })).toEqual([]);
    // Below the count the word is rare, read from its own rows: the same answer.
    expect(await ids({ ...common, commonCount: commonCount + 10 })).toEqual(mine);
  });

  it('finds a person’s rows by a word of their Slack name, beside rows whose words match', async () => {
    const byAnn = await link('U_ANN', { nftId: 'nft-1' });
    const aboutAnn = await link('U_BOB', { nftId: 'nft-2', email: 'ann@example.com' });
    const byBob = await link('U_BOB', { nftId: 'nft-1' });
    expect(await store.historyPeople.peopleToName(10)).toEqual(
      expect.arrayContaining([
        { teamId: 'T1', userId: 'U_ANN' },
        { teamId: 'T1', userId: 'U_BOB' },
      ]),
    );
    await store.historyPeople.setNames('T1', 'U_ANN', ['Ann Lee', 'Annie', 'ann.lee']);
    await store.historyPeople.setNames('T1', 'U_BOB', ['Bob Stone', '', 'bob']);
    expect(await store.historyPeople.peopleToName(10)).toEqual([]);

    const byName = async (typed: string, query: Partial<HistoryQuery> = {}) => {
      const words = searchWords(typed);
      return ids({ ...query, words, people: await store.historyPeople.peopleNamed('T1', words) });
    };
    expect(await byName('ann')).toEqual([aboutAnn, byAnn]);
    expect(await byName('Lee')).toEqual([byAnn]);
    expect(await byName('STONE nft-1')).toEqual([byBob]);
    expect(await byName('ann nft-1')).toEqual([byAnn]);
    expect(await byName('ann', { viewer: viewer('U_BOB') })).toEqual([aboutAnn]);
    expect(await byName('ann', { viewer: viewer('U_ANN') })).toEqual([byAnn]);
    expect(await byName('%')).toEqual([]); // LIKE's own characters match only themselves
    expect(await store.historyPeople.peopleNamed('T2', ['ann'])).toEqual(new Map());
  });

  it('finds the deletion requests a person approved or rejected by a word of their name, for those who see them', async () => {
    const approved = await deletionAsked('U_REQ', ['cus_a'], { users: ['U_AMOS'], userGroups: [] });
    const rejected = await deletionAsked('U_REQ', ['cus_b'], { users: ['U_RITA'], userGroups: [] });
    await deletionAsked('U_BOB', ['cus_c'], { users: ['U_AMOS'], userGroups: [] }); // asked of Amos, not decided
    const requestOf = async (id: string) => String((await store.history.get('T1', id))?.requestId);
    expect((await store.deletionApprovals.approve('T1', await requestOf(approved), 'U_AMOS')).outcome).toBe('approved');
    const rejection = await store.deletionRequests
      .forTeam('T1')
      .decide(await requestOf(rejected), 'rejected', 'U_RITA', undefined);
    expect(rejection.won).toBe(true);
    // Their names are read as a maker's are, once they have decided something.
    expect(await store.historyPeople.peopleToName(10)).toEqual(
      expect.arrayContaining([
        { teamId: 'T1', userId: 'U_AMOS' },
        { teamId: 'T1', userId: 'U_RITA' },
      ]),
    );
    await store.historyPeople.setNames('T1', 'U_AMOS', ['Amos Hale']);
    await store.historyPeople.setNames('T1', 'U_RITA', ['Rita Moss']);
    await store.historyPeople.setNames('T1', 'U_REQ', ['Reggie Quill']);
    const byName = async (typed: string, query: Partial<HistoryQuery> = {}) => {
      const words = searchWords(typed);
      return ids({ ...query, words, people: await store.historyPeople.peopleNamed('T1', words) });
    };
    expect(await byName('amos')).toEqual([approved]); // not the request he was only asked to decide
    expect(await byName('rita')).toEqual([rejected]);
    expect(await byName('HALE cus_a')).toEqual([approved]);
    expect(await byName('amos cus_b')).toEqual([]);
    expect(await byName('amos reggie')).toEqual([approved]); // the approver's and the requester's names together
    // Never wider than what the viewer sees: the requester and the approver see it; someone else does not.
    expect(await byName('amos', { viewer: viewer('U_REQ') })).toEqual([approved]);
    expect(await byName('amos', { viewer: viewer('U_AMOS') })).toEqual([approved]);
    expect(await byName('amos', { viewer: viewer('U_BOB') })).toEqual([]);
    expect(await byName('rita', { viewer: viewer('U_NONE', [], true) })).toEqual([]);
    expect(await byName('amos', { teamId: 'T2' })).toEqual([]);
  });

  it('ends a search at once when a word matches nothing, and starts from the fewest rows names included', async () => {
    const byAnn: string[] = [];
    for (let i = 0; i < 12; i += 1) byAnn.push(await link('U_ANN', { nftId: `nft-${i}` }));
    const bobs = await link('U_BOB', { nftId: 'nft-3', email: 'ann@example.com' });
    await store.historyPeople.setNames('T1', 'U_ANN', ['Ann Lee']);
    await store.historyPeople.setNames('T1', 'U_BOB', ['Bob Stone']);
    const byName = async (typed: string, query: Partial<HistoryQuery> = {}) => {
      const words = searchWords(typed);
      return ids({ ...query, words, people: await store.historyPeople.peopleNamed('T1', words) });
    };
    // A name, then a word no row has (and naming nobody): nothing, whichever comes first, for anyone.
    expect(await byName('ann zzz')).toEqual([]);
    expect(await byName('zzz ann')).toEqual([]);
    expect(await byName('ann zzz', { viewer: viewer('U_ANN') })).toEqual([]);
    // A name with many rows and a rare word: the same answer in either order (read from the rare word).
    expect(await byName('lee nft-3')).toEqual([byAnn[3]]);
    expect(await byName('nft-3 lee')).toEqual([byAnn[3]]);
    expect(await byName('ann nft-3')).toEqual([bobs, byAnn[3]]);
    expect(await byName('nft-3 ann', { viewer: viewer('U_ANN') })).toEqual([byAnn[3]]);
    // Someone who sees only their own rows: another's name matches none of them.
    expect(await byName('lee stone', { viewer: viewer('U_ANN') })).toEqual([]);
    expect(await byName('lee nft-3', { viewer: viewer('U_ANN'), actorId: 'U_ANN' })).toEqual([byAnn[3]]);
    expect(await byName('stone nft-3', { viewer: viewer('U_BOB') })).toEqual([bobs]);
    // Two words each on rows, never on the same row.
    expect(await byName('nft-1 nft-2')).toEqual([]);
    expect(await byName('lee stone')).toEqual([]);
    expect(await byName('lee', { limit: 3 })).toEqual(byAnn.slice(-3).reverse());
  });

  it('reads never-read names first, then the oldest, on both engines', async () => {
    await link('U_OLD', { nftId: 'nft-1' });
    await link('U_NEW', { nftId: 'nft-2' });
    const now = new Date();
    await store.historyPeople.setNames('T1', 'U_OLD', ['Old Name'], new Date(now.getTime() - 3 * 86_400_000));
    expect(await store.historyPeople.peopleToName(1, now)).toEqual([{ teamId: 'T1', userId: 'U_NEW' }]);
    expect(await store.historyPeople.peopleToName(5, now)).toEqual([
      { teamId: 'T1', userId: 'U_NEW' },
      { teamId: 'T1', userId: 'U_OLD' },
    ]);
  });

  it('puts off a whole workspace’s names, keeping them, when the app no longer serves it', async () => {
    await link('U_ANN', { nftId: 'nft-1' });
    await link('U_BOB', { nftId: 'nft-2' });
    const now = new Date();
    await store.historyPeople.setNames('T1', 'U_ANN', ['Ann Lee'], new Date(now.getTime() - 2 * 86_400_000));
    await store.historyPeople.postponeNamesOf('T1', 86_400_000, now);
    expect(await store.historyPeople.peopleToName(10, new Date(now.getTime() + 3_600_000))).toEqual([]);
    expect(await store.historyPeople.peopleToName(10, new Date(now.getTime() + 86_400_001))).toHaveLength(2);
    expect((await store.historyPeople.peopleNamed('T1', ['lee'])).get('lee')).toEqual(['U_ANN']);
  });

  it('keeps a name Slack could not give, and asks again later', async () => {
    await link('U_ANN', { nftId: 'nft-1' });
    const now = new Date();
    await store.historyPeople.setNames('T1', 'U_ANN', ['Ann Lee'], now);
    await store.historyPeople.setNames('T1', 'U_ANN', undefined, now, 10 * 60_000);
    expect(await store.historyPeople.peopleToName(10, now)).toEqual([]);
    expect(await store.historyPeople.peopleToName(10, new Date(now.getTime() + 11 * 60_000))).toHaveLength(1);
    expect((await store.historyPeople.peopleNamed('T1', ['lee'])).get('lee')).toEqual(['U_ANN']);
  });

  it('copies the audit log written before it, once, in batches that resume where they stopped', async () => {
    const at = (i: number) => new Date(Date.UTC(2026, 9, 1, 0, 0, i)).toISOString();
    const request = await store.deletionRequests.create({
      teamId: 'T1',
      requesterId: 'U_CAT',
      customerIds: Array.from({ length: 30 }, (_, i) => `cus_${i}`),
      duplicatesRemoved: 0,
      reason: 'GDPR',
      ttlMs: HOUR,
      approvalsNeeded: 1,
      approvers: { users: [], userGroups: [] },
    });
    const rows = (i: number): AuditLogTable => {
      const base = { id: `0000-${String(i).padStart(4, '0')}`, at: at(i), team_id: 'T1', outcome: 'succeeded' };
      if (i === 7)
        return {
          ...base,
          actor_id: 'U_CAT',
          operation: 'customers.delete.request',
          inputs: JSON.stringify({ requestId: request.id, customerIds: { count: 30, first: ['cus_0'] } }),
          detail: request.id,
        };
      if (i % 5 === 4) return { ...base, actor_id: 'U_ANN', operation: 'settings.change', inputs: '{}', detail: null };
      return {
        ...base,
        actor_id: 'U_ANN',
        operation: 'link.create',
        inputs: JSON.stringify({ nftId: `nft-${i}`, customerId: ['cus_old'] }),
        detail: `https://mint.example/l/old${i}`,
      };
    };
    await seedAuditLog(db.databaseUrl, 12, rows);
    // One entry made live after the upgrade is already there when the copy reaches it.
    await link('U_ANN', { nftId: 'nft-live' });

    expect(await store.historyBackfill.backfillBatch(5)).toEqual({ read: 5, finished: false });
    expect(await store.historyBackfill.backfillFinished()).toBe(false);
    expect(await store.historyBackfill.backfillBatch(5)).toEqual({ read: 5, finished: false });
    expect(await store.historyBackfill.backfillBatch(5)).toEqual({ read: 1, finished: true });
    expect(await store.historyBackfill.backfillBatch(5)).toEqual({ read: 0, finished: true });
    expect(await store.historyBackfill.backfillFinished()).toBe(true);

    const all = (await page({ limit: 50 })).items;
    expect(all).toHaveLength(11); // 9 links and a deletion copied, the live link kept
    expect(all.filter((i) => i.nftId === 'nft-live')).toHaveLength(1);
    expect(await ids({ words: ['https://mint.example/l/old3'] })).toEqual(['0000-0003']);
    // The request's whole list of customers, not the audit entry's shortened one.
    expect(await ids({ words: ['cus_29'] })).toEqual(['0000-0007']);
    expect((await store.history.get('T1', '0000-0007'))?.customerIds).toHaveLength(30);
  });

  // On SQLite one transaction writes the file at a time: the race is PostgreSQL's.
  it.skipIf(engine !== 'postgres')('copies each batch once when two replicas copy at the same time', async () => {
    await seedAuditLog(db.databaseUrl, 60, (i) => ({
      id: `0000-${String(i).padStart(4, '0')}`,
      at: new Date(Date.UTC(2026, 9, 1, 0, 0, i)).toISOString(),
      team_id: 'T1',
      actor_id: 'U_ANN',
      operation: 'link.create',
      inputs: JSON.stringify({ nftId: `nft-${i}` }),
      outcome: 'succeeded',
      detail: null,
    }));
    const replicas = [store, migrated.open()];
    const copy = async (replica: Store) => {
      let read = 0;
      for (;;) {
        const batch = await replica.historyBackfill.backfillBatch(7);
        read += batch.read;
        if (batch.finished) return read;
      }
    };
    const reads = await Promise.all(replicas.map((replica) => copy(replica)));
    // Each entry read by one replica only: without the claim both read the same batches.
    expect(reads.reduce((sum, read) => sum + read, 0)).toBe(60);
    expect((await page({ limit: 100 })).items).toHaveLength(60);
  });

  it('copies entries that had no workspace when the copy ran, once they are given one', async () => {
    await seedAuditLog(db.databaseUrl, 1, () => ({
      id: '0000-orphan',
      at: new Date(Date.UTC(2026, 9, 1)).toISOString(),
      team_id: null,
      actor_id: 'U_ANN',
      operation: 'link.create',
      inputs: JSON.stringify({ nftId: 'nft-before-workspaces' }),
      outcome: 'succeeded',
      detail: 'https://mint.example/l/orphan',
    }));
    expect(await store.historyBackfill.backfillBatch(5)).toEqual({ read: 1, finished: true });
    expect(await ids({ words: ['nft-before-workspaces'] })).toEqual([]); // a History row needs its workspace

    await store.adoptRowsWithoutWorkspace('T1');
    expect(await store.historyBackfill.backfillFinished()).toBe(false);
    expect(await store.historyBackfill.backfillBatch(5)).toEqual({ read: 1, finished: true });
    expect(await ids({ words: ['nft-before-workspaces'] })).toEqual(['0000-orphan']);
  });

  it('prunes rows (and their words) older than a time, in batches', async () => {
    for (let i = 0; i < 5; i += 1)
      await link('U_ANN', { nftId: 'nft-old' }, undefined, new Date(Date.now() - (10 + i) * 24 * HOUR));
    const kept = await link('U_ANN', { nftId: 'nft-old' });
    const before = new Date(Date.now() - 5 * 24 * HOUR);
    expect(await store.history.pruneBatch(before, 3)).toBe(3);
    expect(await store.history.pruneBatch(before, 3)).toBe(2);
    expect(await store.history.pruneBatch(before, 3)).toBe(0);
    expect(await ids({ words: ['nft-old'] })).toEqual([kept]);
  });
});
