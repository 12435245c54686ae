import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

export interface HomeTab {
  userId: string;
  teamId: string | undefined;
  hash: string | undefined;
}

/** Users with a published App Home, and the hash of the latest version each one sees. */
export class HomeTabs {
  constructor(private readonly db: Kysely<Tables>) {}

  async get(userId: string): Promise<HomeTab | undefined> {
    const row = await this.db.selectFrom('home_tabs').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return row ? { userId: row.user_id, teamId: row.team_id ?? undefined, hash: row.hash ?? undefined } : undefined;
  }

  /**
   * Records what was published for a user, `publishedAt` being when Slack answered. A record of a later
   * publish is never replaced by an earlier one that is saved late (two replicas publishing at once).
   */
  async save(tab: HomeTab, publishedAt = new Date()): Promise<void> {
    const values = { hash: tab.hash ?? null, team_id: tab.teamId ?? null, published_at: publishedAt.toISOString() };
    await this.db
      .insertInto('home_tabs')
      .values({ user_id: tab.userId, ...values })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet(values).where('home_tabs.published_at', '<', values.published_at),
      )
      .execute();
  }

  /** Everyone with a Home, and their workspace. */
  async withHome(): Promise<{ userId: string; teamId: string | undefined }[]> {
    const rows = await this.db.selectFrom('home_tabs').select(['user_id', 'team_id']).execute();
    return rows.map((r) => ({ userId: r.user_id, teamId: r.team_id ?? undefined }));
  }
}
