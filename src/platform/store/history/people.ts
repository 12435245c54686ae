import { type Kysely, sql } from 'kysely';
import type { Tables } from '../tables.js';

/** A word finds the rows of at most this many people named with it (each one index range). */
export const PEOPLE_PER_WORD = 20;
/** Names read again from Slack after this long (people rename themselves). */
const NAMES_KEPT_MS = 86_400_000;

/**
 * The Slack names of the people who made History's rows or decided its deletion requests (`history_people`):
 * read from Slack in the background, and looked up by a search's words.
 */
export class HistoryPeople {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * For each word, the people of the workspace (who made rows) whose Slack names contain it, at most
   * PEOPLE_PER_WORD each; words naming nobody are left out.
   */
  async peopleNamed(teamId: string, words: readonly string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    await Promise.all(
      words.map(async (word) => {
        const rows = await this.db
          .selectFrom('history_people')
          .select('user_id')
          .where('team_id', '=', teamId)
          .where(sql<boolean>`names like ${`%${likeEscaped(word)}%`} escape '!'`)
          .orderBy('user_id')
          .limit(PEOPLE_PER_WORD)
          .execute();
        if (rows.length > 0)
          found.set(
            word,
            rows.map((row) => row.user_id),
          );
      }),
    );
    return found;
  }

  /**
   * People whose names were never read (first: they have no name to be found by yet), then those not read for a
   * day, oldest first: the names job reads them from Slack. Two reads, each along the `named_at` index, so the
   * order is the same on both engines (PostgreSQL sorts nulls last, SQLite first).
   */
  async peopleToName(limit: number, now = new Date()): Promise<Array<{ teamId: string; userId: string }>> {
    const stale = new Date(now.getTime() - NAMES_KEPT_MS).toISOString();
    const people = this.db.selectFrom('history_people').select(['team_id', 'user_id']);
    const never = await people.where('named_at', 'is', null).limit(limit).execute();
    const old =
      never.length < limit
        ? await people
            .where('named_at', '<', stale)
            .orderBy('named_at')
            .limit(limit - never.length)
            .execute()
        : [];
    return [...never, ...old].map((row) => ({ teamId: row.team_id, userId: row.user_id }));
  }

  /**
   * Puts off reading the names of all of a workspace's people (the app no longer serves it: uninstalled, or its
   * token revoked) until `retryInMs` from now, names kept: one ask then tells whether it came back, instead of
   * one per person every few minutes.
   */
  async postponeNamesOf(teamId: string, retryInMs: number, now = new Date()): Promise<void> {
    const namedAt = new Date(now.getTime() - NAMES_KEPT_MS + retryInMs).toISOString();
    await this.db.updateTable('history_people').set({ named_at: namedAt }).where('team_id', '=', teamId).execute();
  }

  /**
   * A person's Slack names as read now (none: Slack does not know them). `undefined`: Slack could not answer;
   * the names kept stay, and are asked again `retryInMs` from now.
   */
  async setNames(
    teamId: string,
    userId: string,
    names: readonly string[] | undefined,
    now = new Date(),
    retryInMs = 0,
  ): Promise<void> {
    const namedAt = new Date(now.getTime() - (names ? 0 : NAMES_KEPT_MS - retryInMs)).toISOString();
    const line = names && [...new Set(names.map((name) => name.trim().toLowerCase()).filter(Boolean))].join(' ');
    await this.db
      .updateTable('history_people')
      .set({ named_at: namedAt, ...(line === undefined ? {} : { names: line }) })
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .execute();
  }
}

/** A word for LIKE ... ESCAPE '!': its own %, _ and ! match only themselves. */
function likeEscaped(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
