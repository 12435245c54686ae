import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('deletion_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text')
    .addColumn('requester_id', 'text', (c) => c.notNull())
    .addColumn('customer_ids', 'text', (c) => c.notNull())
    .addColumn('customer_count', 'integer', (c) => c.notNull())
    .addColumn('duplicates_removed', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('decision_note', 'text')
    .addColumn('approval_channel_id', 'text')
    .addColumn('approval_message_ts', 'text')
    .addColumn('requester_message_channel', 'text')
    .addColumn('requester_message_ts', 'text')
    .addColumn('run_started_at', 'text')
    .addColumn('run_by', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('outcome_detail', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('deletion_requests_status')
    .on('deletion_requests')
    .columns(['status', 'expires_at'])
    .execute();
  await db.schema
    .createIndex('deletion_requests_requester')
    .on('deletion_requests')
    .columns(['requester_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('deletion_requests').execute();
}
