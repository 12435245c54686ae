import type { Kysely } from 'kysely';

/**
 * A job's failed rows can be retried as a new job: the retry names the job it retries (`retry_of`), the job
 * names the retry that was started (`retried_as`, set once: a job's failed rows are retried once, so nothing
 * is sent twice), and a retry's draft counts the rows it holds back unless the person chooses them
 * (`held_rows`: rows whose outcome was unknown, which may have been created).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bulk_jobs').addColumn('retry_of', 'text').execute();
  await db.schema.alterTable('bulk_jobs').addColumn('retried_as', 'text').execute();
  await db.schema
    .alterTable('bulk_jobs')
    .addColumn('held_rows', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bulk_jobs').dropColumn('held_rows').execute();
  await db.schema.alterTable('bulk_jobs').dropColumn('retried_as').execute();
  await db.schema.alterTable('bulk_jobs').dropColumn('retry_of').execute();
}
