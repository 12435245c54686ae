import type { Kysely } from 'kysely';

/**
 * How each Mint account's last real call to the service ended, and when: one row per account (a workspace's
 * team id, or '' for the operator's MINT_API_KEY), so that `npm run doctor` in a process of its own and every
 * replica read the same answer. `key_id` names the key the call was made with (a digest, never the key).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mint_call_outcomes')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mint_call_outcomes').execute();
}
