import type { Kysely } from 'kysely';

/**
 * A draft's rows packed in one value until Start (see packRows): a checked file waits for Start as a small
 * compressed value, not as thousands of rows and their index entries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bulk_drafts')
    .addColumn('job_id', 'text', (c) => c.primaryKey().references('bulk_jobs.id').onDelete('cascade'))
    .addColumn('packed_rows', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bulk_drafts').execute();
}
