import type { Kysely } from 'kysely';

/**
 * History: what was made through the app (links, wallets, deletion requests, bulk jobs), one row per audit entry
 * that made it (same id), written in the transaction of that entry, with the fields people search by.
 * - `history` is read newest first, a page at a time after the last row shown (keyset, never OFFSET): of a
 *   workspace, of one person in it, or of one kind, each an index in that order.
 * - `history_terms` holds each row's searchable words (NFT id, customer ids, e-mail and its parts, URL and its
 *   link id, request and job ids), lowercased: a search reads one word's rows newest first from its index and
 *   checks the others by the primary key. The kind, actor and time are repeated so that filters need no join.
 * - `history_backfill` remembers how far the audit log written before this migration has been copied in
 *   (resumable, in batches, by the scheduler).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('made_at', 'text', (c) => c.notNull())
    .addColumn('how', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('nft_id', 'text')
    .addColumn('customer_ids', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('url', 'text')
    .addColumn('request_id', 'text')
    .addColumn('job_id', 'text')
    .addColumn('facts', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('history_team_made').on('history').columns(['team_id', 'made_at', 'id']).execute();
  await db.schema
    .createIndex('history_team_actor_made')
    .on('history')
    .columns(['team_id', 'actor_id', 'made_at', 'id'])
    .execute();
  await db.schema
    .createIndex('history_team_kind_made')
    .on('history')
    .columns(['team_id', 'kind', 'made_at', 'id'])
    .execute();
  // Retention deletes oldest first across workspaces.
  await db.schema.createIndex('history_made').on('history').columns(['made_at']).execute();

  await db.schema
    .createTable('history_terms')
    .addColumn('history_id', 'text', (c) => c.notNull())
    .addColumn('term', 'text', (c) => c.notNull())
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('made_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('history_terms_pk', ['history_id', 'term'])
    .execute();
  await db.schema
    .createIndex('history_terms_team_term_made')
    .on('history_terms')
    .columns(['team_id', 'term', 'made_at', 'history_id'])
    .execute();

  await db.schema
    .createTable('history_backfill')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('after_at', 'text')
    .addColumn('after_id', 'text')
    .addColumn('copied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('finished_at', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('history_backfill').execute();
  await db.schema.dropTable('history_terms').execute();
  await db.schema.dropTable('history').execute();
}
