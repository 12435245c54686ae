import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('once_keys')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('once_keys_claimed_at').on('once_keys').column('claimed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('once_keys').execute();
}
