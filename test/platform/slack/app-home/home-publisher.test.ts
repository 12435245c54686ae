import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { section } from '../../../../src/platform/blocks/blocks.js';
import { WorkBudget } from '../../../../src/platform/slack/admission/work-budget.js';
import { HomePublisher } from '../../../../src/platform/slack/app-home/home-publisher.js';
import type { Kysely } from 'kysely';
import { type HomeTab, HomeTabs } from '../../../../src/platform/store/home-tabs.js';
import { openDatabase } from '../../../../src/platform/store/open-database.js';
import type { Tables } from '../../../../src/platform/store/tables.js';
import { openStore, type Store } from '../../../../src/platform/store/store.js';
import { FakeSlack } from '../../../kit/fake-slack.js';
import { sqliteDatabase, type TestDatabase } from '../../../kit/store-engines.js';
import { testLogger } from '../../../kit/test-logger.js';

/*
 * Home refreshes read the Homes of the workspace concerned only, and of the people concerned where they are
 * known: a change in one workspace never reads (nor publishes) another workspace's Homes, however many there are.
 */

const A = 'T0HOMEA001';
const B = 'T0HOMEB001';
const USERS_A = ['U0A000001', 'U0A000002', 'U0A000003'];
const USERS_B = Array.from({ length: 40 }, (_, i) => `U0B${String(i).padStart(6, '0')}`);

/** The store's Home rows, counting every row a read gives back, by workspace. */
class CountingHomeTabs extends HomeTabs {
  readonly rowsRead = new Map<string, number>();

  override async amongIn(teamId: string | undefined, userIds: readonly string[]): Promise<HomeTab[]> {
    return this.counted(await super.amongIn(teamId, userIds));
  }

  override async inWorkspace(teamId: string, afterUserId?: string, limit?: number): Promise<HomeTab[]> {
    return this.counted(await super.inWorkspace(teamId, afterUserId, limit));
  }

  override async get(userId: string, teamId: string | undefined): Promise<HomeTab | undefined> {
    const tab = await super.get(userId, teamId);
    return tab && this.counted([tab])[0];
  }

  private counted(tabs: HomeTab[]): HomeTab[] {
    for (const tab of tabs) this.rowsRead.set(tab.teamId ?? '', (this.rowsRead.get(tab.teamId ?? '') ?? 0) + 1);
    return tabs;
  }
}

describe('Home refreshes', () => {
  const slack = new FakeSlack();
  let database: TestDatabase;
  let store: Store;
  let db: Kysely<Tables>;
  let homeTabs: CountingHomeTabs;
  let publisher: HomePublisher;
  let work: WorkBudget;

  beforeAll(async () => {
    await slack.start();
    database = sqliteDatabase();
    store = openStore(database.location);
    await store.migrate();
    db = openDatabase(database.location);
    for (const user of USERS_A) await store.homeTabs.save({ userId: user, teamId: A, hash: undefined });
    for (const user of USERS_B) await store.homeTabs.save({ userId: user, teamId: B, hash: undefined });
  });
  afterAll(async () => {
    await db.destroy();
    await store.close();
    await database.drop();
    await slack.stop();
  });
  beforeEach(() => {
    slack.reset();
    homeTabs = new CountingHomeTabs(db);
    work = new WorkBudget(10);
    const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
    publisher = new HomePublisher({
      homeTabs,
      slack: () => Promise.resolve(client),
      work,
      logger: testLogger('error', (text) => text),
    });
    // The screen as the home capability gives it, reduced to what these tests read: whose Home it is.
    publisher.show((userId, teamId) => Promise.resolve({ type: 'home', blocks: [section(`${teamId} ${userId}`)] }));
  });

  const published = () =>
    slack
      .callsTo('views.publish')
      .map((c) => String(c.params.user_id))
      .sort();

  it('of a whole workspace read and publish that workspace’s Homes only', async () => {
    publisher.refreshWorkspace(A);
    expect(await work.idle(10_000)).toBe(true);
    expect(published()).toEqual(USERS_A);
    expect(homeTabs.rowsRead.get(B)).toBeUndefined();

    publisher.refreshWorkspace(B, (userId) => Promise.resolve(userId.endsWith('7')));
    expect(await work.idle(10_000)).toBe(true);
    expect(published()).toEqual([...USERS_A, ...USERS_B.filter((u) => u.endsWith('7'))].sort());
  });

  it('of some people read those people’s rows only', async () => {
    publisher.refreshIn(B, [USERS_B[3] ?? '', 'U0NOHOME01']);
    expect(await work.idle(10_000)).toBe(true);
    expect(published()).toEqual([USERS_B[3]]);
    expect(homeTabs.rowsRead.get(A)).toBeUndefined();
    expect(homeTabs.rowsRead.get(B)).toBeLessThanOrEqual(2); // the row found, and the hash read to publish
  });

  it('are built by the screen given, with the entries in their order', async () => {
    const orders: number[][] = [];
    publisher.show((_userId, _teamId, entries) => {
      orders.push(entries.map((entry) => entry.order));
      return Promise.resolve({ type: 'home', blocks: [] });
    });
    publisher.add({ order: 20 });
    publisher.add({ order: 10 });
    await publisher.publish(USERS_A[0] ?? '', A);
    expect(orders).toEqual([[10, 20]]);
  });

  it('are not published before the home capability gave the screen', async () => {
    const unshown = new HomePublisher({
      homeTabs,
      slack: () => Promise.reject(new Error('no Slack call expected')),
      work,
      logger: testLogger('error', (text) => text),
    });
    await expect(unshown.publish(USERS_A[0] ?? '', A)).rejects.toThrow('App Home has no screen');
    expect(published()).toEqual([]);
  });
});
