import { beforeEach, expect, it } from 'vitest';
import { historyNamesJob } from '../../../src/capabilities/history/history-jobs.js';
import type { Store } from '../../../src/platform/store/store.js';
import { WorkspaceGone } from '../../../src/tenancy/workspaces/workspaces.js';
import { describeEachEngine, useMigratedStore } from '../../kit/store-engines.js';
import { testLogger } from '../../kit/test-logger.js';

/*
 * The names job against workspaces the app no longer serves: one ask per workspace, one log line, and their
 * people put off for a day (names kept), instead of a warning and a retry per person every ten minutes.
 */
describeEachEngine('history names job', (_engine, create) => {
  const migrated = useMigratedStore(create);
  let store: Store;
  beforeEach(() => ({ store } = migrated));

  async function madeBy(teamId: string, actorId: string) {
    const entry = await store.audit.start({
      actorId,
      teamId,
      operation: 'link.create',
      inputs: { nftId: 'nft-1' },
      history: { kind: 'link', how: 'form', link: { nftId: 'nft-1' } },
    });
    await store.audit.complete(entry.id, 'succeeded', 'https://mint.example/l/lnk_1');
  }

  it('puts off the people of an uninstalled or revoked workspace with one line, not one warning each', async () => {
    for (const user of ['U1', 'U2', 'U3']) await madeBy('T_GONE', user);
    for (const user of ['U4', 'U5']) await madeBy('T_REVOKED', user);
    const asked: string[] = [];
    const lines: Array<{ level: string; msg: string; team?: string; reason?: string }> = [];
    const job = historyNamesJob({
      store,
      logger: testLogger(
        'info',
        (text) => text,
        (line) => lines.push(JSON.parse(line)),
      ),
      work: { track: (work) => work },
      workspaces: {
        slack: async (teamId) => {
          asked.push(teamId ?? '');
          if (teamId === 'T_GONE') throw new WorkspaceGone('no installation serves workspace T_GONE');
          throw Object.assign(new Error('An API error occurred: token_revoked'), { data: { error: 'token_revoked' } });
        },
      },
    });
    await job.run();
    expect(asked.sort()).toEqual(['T_GONE', 'T_REVOKED']);
    expect(lines.map((line) => [line.team, line.reason]).sort()).toEqual([
      ['T_GONE', 'no installation'],
      ['T_REVOKED', 'token_revoked'],
    ]);
    expect(lines.map((line) => line.level)).toEqual(['info', 'info']); // not a warning
    expect(await store.historyPeople.peopleToName(10)).toEqual([]);
    expect(await store.historyPeople.peopleToName(10, new Date(Date.now() + 86_400_000 + 60_000))).toHaveLength(5);
  });
});
