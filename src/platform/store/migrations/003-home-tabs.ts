import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('home_tabs')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text')
    .addColumn('hash', 'text')
    .addColumn('published_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('home_tabs').execute();
}
