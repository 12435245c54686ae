import { beforeEach, expect, it } from 'vitest';
import { viewerAudiences } from '../../../src/capabilities/history/history-viewer.js';
import type { HistoryViewer } from '../../../src/platform/store/history/search.js';
import { searchWords } from '../../../src/platform/store/history/entry.js';
import type { Store } from '../../../src/platform/store/store.js';
import { askDeletion } from '../../kit/audit-seed.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';

/* A decider's name, or the decided-by: word itself typed in a search, reveals no row the searcher may not see. */

describeEachEngine('history search by who decided', (engine, create) => {
  const migrated = useMigratedStore(create);
  let store: Store;
  beforeEach(() => ({ store } = migrated));

  async function deletion(teamId: string, requester: string, approvers: string[]) {
    return store.transaction(async (tx) => {
      const { requestId, entryId } = await askDeletion(tx, {
        teamId,
        requesterId: requester,
        customerIds: ['cus_secret'],
        approvers: { users: approvers, userGroups: [] },
        approvalsNeeded: 2,
      });
      return { id: entryId, requestId };
    });
  }
  const plain = (userId: string, approverInForce = false): HistoryViewer => ({
    everything: false,
    userId,
    audiences: viewerAudiences({ userId, groups: [], approverInForce }),
  });
  const search = async (teamId: string, viewer: HistoryViewer, typed: string) => {
    const words = searchWords(typed);
    const people = await store.historyPeople.peopleNamed(teamId, words);
    const page = await store.history.page({ teamId, viewer, words, people, limit: 10 });
    return page.items.map((i) => i.id);
  };

  it('finds by decider only within what the searcher may see', async () => {
    const asked = await deletion('T1', 'U_CAT', ['U_APP', 'U_APP2']);
    const other = await deletion('T1', 'U_CAT', ['U_APP3', 'U_APP']);
    const foreign = await deletion('T2', 'U_CAT', ['U_APP']);
    await store.deletionApprovals.approve('T1', asked.requestId, 'U_APP');
    await store.deletionApprovals.approve('T1', other.requestId, 'U_APP');
    await store.deletionApprovals.approve('T2', foreign.requestId, 'U_APP');
    await store.historyPeople.setNames('T1', 'U_APP', ['Zelda Approver']);
    await store.historyPeople.setNames('T2', 'U_APP', ['Zelda Approver']);
    await store.historyPeople.setNames('T1', 'U_CAT', ['Cat Requester']);
    // The decider's term is there (the feature works at all).
    expect(await search('T1', { everything: true }, 'zelda')).toEqual(expect.arrayContaining([asked.id, other.id]));
    expect(await search('T1', { everything: true }, 'decided-by:u_app')).toHaveLength(2);
    // Someone with no rights: nothing, by name or by term or both.
    for (const typed of ['zelda', 'decided-by:u_app', 'zelda cus_secret', 'cat zelda', 'decided-by:u_app cat'])
      expect(await search('T1', plain('U_EVE'), typed)).toEqual([]);
    // U_APP2 was asked of `asked` only, U_APP3 of `other` only.
    expect(await search('T1', plain('U_APP2'), 'zelda')).toEqual([asked.id]);
    expect(await search('T1', plain('U_APP3'), 'decided-by:u_app')).toEqual([other.id]);
    expect(await search('T1', plain('U_APP3'), 'zelda cat')).toEqual([other.id]);
    // An approver in force (audience `approvers`) sees no request asked of named approvers only.
    expect(await search('T1', plain('U_X', true), 'zelda')).toEqual([]);
    // Never the other workspace's row.
    expect(await search('T1', { everything: true }, 'zelda')).not.toContain(foreign.id);
  });
});
