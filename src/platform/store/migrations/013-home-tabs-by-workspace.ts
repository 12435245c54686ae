import { sql, type Kysely } from 'kysely';

/**
 * App Home is published per workspace: an Enterprise Grid user has the same user id in every workspace of the
 * organization, and a Home in each. The table is keyed by (workspace, user); rows without a workspace (from
 * before) get '' until the app gives them the bot's workspace (single-workspace mode).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('home_tabs_by_workspace')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('hash', 'text')
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('home_tabs_by_workspace_pk', ['team_id', 'user_id'])
    .execute();
  await sql`insert into home_tabs_by_workspace (team_id, user_id, hash, published_at)
    select coalesce(team_id, ''), user_id, hash, published_at from home_tabs`.execute(db);
  await db.schema.dropTable('home_tabs').execute();
  await db.schema.alterTable('home_tabs_by_workspace').renameTo('home_tabs').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('home_tabs_by_user')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text')
    .addColumn('hash', 'text')
    .addColumn('published_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into home_tabs_by_user (user_id, team_id, hash, published_at)
    select user_id, max(nullif(team_id, '')), max(hash), max(published_at) from home_tabs group by user_id`.execute(db);
  await db.schema.dropTable('home_tabs').execute();
  await db.schema.alterTable('home_tabs_by_user').renameTo('home_tabs').execute();
}
