import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

export interface HomeTab {
  userId: string;
  /** The workspace the Home is in (undefined: not known, for rows from before). */
  teamId: string | undefined;
  hash: string | undefined;
}

/**
 * Users with a published App Home in a workspace, and the hash of the latest version each one sees. An
 * Enterprise Grid user has one user id and a Home in each workspace of the organization.
 */
export class HomeTabs {
  constructor(private readonly db: Kysely<Tables>) {}

  async get(userId: string, teamId: string | undefined): Promise<HomeTab | undefined> {
    const row = await this.db
      .selectFrom('home_tabs')
      .selectAll()
      .where('team_id', '=', teamId ?? '')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row ? toTab(row) : undefined;
  }

  /**
   * Records what was published for a user, `publishedAt` being when Slack answered. A record of a later
   * publish is never replaced by an earlier one that is saved late (two replicas publishing at once).
   */
  async save(tab: HomeTab, publishedAt = new Date()): Promise<void> {
    const values = { hash: tab.hash ?? null, published_at: publishedAt.toISOString() };
    await this.db
      .insertInto('home_tabs')
      .values({ team_id: tab.teamId ?? '', user_id: tab.userId, ...values })
      .onConflict((oc) =>
        oc
          .columns(['team_id', 'user_id'])
          .doUpdateSet(values)
          .where('home_tabs.published_at', '<', values.published_at),
      )
      .execute();
  }

  /** Which of these users have a Home in workspace `teamId` (undefined: rows of no workspace, from before). */
  async amongIn(teamId: string | undefined, userIds: readonly string[]): Promise<HomeTab[]> {
    const tabs: HomeTab[] = [];
    // In slices: a statement's parameters are bounded (a user group of approvers may be large).
    for (let start = 0; start < userIds.length; start += 500) {
      const rows = await this.db
        .selectFrom('home_tabs')
        .selectAll()
        .where('team_id', '=', teamId ?? '')
        .where('user_id', 'in', userIds.slice(start, start + 500))
        .execute();
      tabs.push(...rows.map((row) => toTab(row)));
    }
    return tabs;
  }

  /**
   * A page of the Homes of workspace `teamId`, by user id after `afterUserId`: only that workspace's rows are
   * read (the primary key, workspace then user, is the index), a page at a time however many Homes it has.
   */
  async inWorkspace(teamId: string, afterUserId = '', limit = 500): Promise<HomeTab[]> {
    const rows = await this.db
      .selectFrom('home_tabs')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('user_id', '>', afterUserId)
      .orderBy('user_id')
      .limit(limit)
      .execute();
    return rows.map((row) => toTab(row));
  }
}

function toTab(row: Tables['home_tabs']): HomeTab {
  return { userId: row.user_id, teamId: row.team_id || undefined, hash: row.hash ?? undefined };
}
