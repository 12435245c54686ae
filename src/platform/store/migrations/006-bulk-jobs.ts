import type { Kysely } from 'kysely';

/** Bulk jobs (links or wallets from a CSV) and their rows, each row worked and settled on its own. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bulk_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text')
    .addColumn('requester_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source_name', 'text', (c) => c.notNull())
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('defaults', 'text', (c) => c.notNull())
    .addColumn('total_rows', 'integer', (c) => c.notNull())
    .addColumn('valid_rows', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('changed_by', 'text')
    .addColumn('note', 'text')
    .addColumn('cancelled_by', 'text')
    .addColumn('audit_id', 'text')
    .addColumn('message_channel', 'text')
    .addColumn('message_ts', 'text')
    .addColumn('progress_at', 'text')
    .addColumn('progress_digest', 'text')
    .addColumn('finish_claimed_at', 'text')
    .addColumn('finish_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('results_file_id', 'text')
    .addColumn('results_note', 'text')
    .execute();
  await db.schema.createIndex('bulk_jobs_status').on('bulk_jobs').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('bulk_jobs_requester').on('bulk_jobs').columns(['requester_id', 'status']).execute();

  await db.schema
    .createTable('bulk_rows')
    .addColumn('job_id', 'text', (c) => c.notNull().references('bulk_jobs.id').onDelete('cascade'))
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('cells', 'text', (c) => c.notNull())
    .addColumn('request', 'text')
    .addColumn('error', 'text')
    .addColumn('result_url', 'text')
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_at', 'text')
    .addColumn('finished_at', 'text')
    .addPrimaryKeyConstraint('bulk_rows_pk', ['job_id', 'row_number'])
    .execute();
  await db.schema.createIndex('bulk_rows_status').on('bulk_rows').columns(['job_id', 'status', 'row_number']).execute();
  await db.schema.createIndex('bulk_rows_sending').on('bulk_rows').columns(['status', 'claimed_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bulk_rows').execute();
  await db.schema.dropTable('bulk_jobs').execute();
}
