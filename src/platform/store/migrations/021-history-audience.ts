import { type Kysely, sql } from 'kysely';

/** Deletion rows given their audience per statement while migrating (a workspace's whole past, in steps). */
const STEP = 500;

/**
 * History read within what a viewer may see, by index, however common the searched word:
 * - `history_terms` gains (workspace, word, maker, time) and (workspace, word, kind, time): a person's own rows
 *   with a word, or one kind's, are one index range, never the word's rows of the whole workspace filtered.
 * - `history_audience`: who was asked to decide each deletion request, one row per approver (`user:U…`), user
 *   group (`group:S…`), or `approvers` for a request from before its approvers were recorded (those in force
 *   decide it), with the maker and time so a viewer's requests are one index range. Filled here for the rows
 *   already written.
 * - `history_groups`: the user groups any request of a workspace named, so a viewer's groups are checked among
 *   a handful, not found by a scan.
 * - `history_people`: the people who made rows, and their Slack names (lowercased, filled later from
 *   users.info), so a search word finds a person's rows by their name.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('history_terms_team_term_actor_made')
    .on('history_terms')
    .columns(['team_id', 'term', 'actor_id', 'made_at', 'history_id'])
    .execute();
  await db.schema
    .createIndex('history_terms_team_term_kind_made')
    .on('history_terms')
    .columns(['team_id', 'term', 'kind', 'made_at', 'history_id'])
    .execute();

  await db.schema
    .createTable('history_audience')
    .addColumn('history_id', 'text', (c) => c.notNull())
    .addColumn('audience', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('made_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('history_audience_pk', ['history_id', 'audience'])
    .execute();
  await db.schema
    .createIndex('history_audience_team_audience_made')
    .on('history_audience')
    .columns(['team_id', 'audience', 'made_at', 'history_id'])
    .execute();
  await db.schema
    .createTable('history_groups')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('history_groups_pk', ['team_id', 'group_id'])
    .execute();
  await db.schema
    .createTable('history_people')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('names', 'text')
    .addColumn('named_at', 'text')
    .addPrimaryKeyConstraint('history_people_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('history_people_named').on('history_people').columns(['named_at']).execute();

  await sql`insert into history_people (team_id, user_id) select distinct team_id, actor_id from history`.execute(db);
  let after = '';
  for (;;) {
    const { rows } = await sql<{
      id: string;
      team_id: string;
      actor_id: string;
      made_at: string;
      approvers: string | null;
    }>`select h.id, h.team_id, h.actor_id, h.made_at, d.approvers from history h
         left join deletion_requests d on d.id = h.request_id
       where h.kind = 'deletion' and h.id > ${after} order by h.id limit ${STEP}`.execute(db);
    for (const row of rows) {
      const asked = audienceOf(row.approvers);
      for (const audience of asked.audiences)
        await sql`insert into history_audience (history_id, audience, team_id, actor_id, made_at)
          values (${row.id}, ${audience}, ${row.team_id}, ${row.actor_id}, ${row.made_at})
          on conflict do nothing`.execute(db);
      for (const group of asked.groups)
        await sql`insert into history_groups (team_id, group_id) values (${row.team_id}, ${group})
          on conflict do nothing`.execute(db);
    }
    const last = rows.at(-1);
    if (!last || rows.length < STEP) break;
    after = last.id;
  }
}

/** A request's stored approvers (JSON `{users, userGroups}`) as audiences; unreadable or none: those in force. */
function audienceOf(stored: string | null): { audiences: string[]; groups: string[] } {
  try {
    const parsed: unknown = stored ? JSON.parse(stored) : undefined;
    if (parsed && typeof parsed === 'object' && 'users' in parsed && 'userGroups' in parsed) {
      const users = Array.isArray(parsed.users) ? parsed.users.filter((u) => typeof u === 'string') : [];
      const groups = Array.isArray(parsed.userGroups) ? parsed.userGroups.filter((g) => typeof g === 'string') : [];
      return { audiences: [...users.map((u) => `user:${u}`), ...groups.map((g) => `group:${g}`)], groups };
    }
  } catch {
    // Unreadable reads as none recorded, as the deletions read it.
  }
  return { audiences: ['approvers'], groups: [] };
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('history_people').execute();
  await db.schema.dropTable('history_groups').execute();
  await db.schema.dropTable('history_audience').execute();
  await db.schema.dropIndex('history_terms_team_term_kind_made').execute();
  await db.schema.dropIndex('history_terms_team_term_actor_made').execute();
}
