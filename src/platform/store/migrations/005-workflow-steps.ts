import type { Kysely } from 'kysely';

/**
 * Workflow Builder steps: where an audited operation came from, a deletion request's origin and context
 * (the message it was asked from), and the steps waiting for a deletion request to end.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('origin', 'text').execute();
  await db.schema.alterTable('deletion_requests').addColumn('origin', 'text').execute();
  await db.schema.alterTable('deletion_requests').addColumn('context_url', 'text').execute();
  await db.schema
    .createTable('step_completions')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('function_execution_id', 'text', (c) => c.notNull())
    .addColumn('sealed_token', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('result', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_try_at', 'text')
    .execute();
  await db.schema
    .createIndex('step_completions_state')
    .on('step_completions')
    .columns(['state', 'created_at'])
    .execute();
  // One execution waits for one request: a second delivery can never open a second request for it.
  await db.schema
    .createIndex('step_completions_execution')
    .unique()
    .on('step_completions')
    .column('function_execution_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('step_completions').execute();
  await db.schema.alterTable('deletion_requests').dropColumn('context_url').execute();
  await db.schema.alterTable('deletion_requests').dropColumn('origin').execute();
  await db.schema.alterTable('audit_log').dropColumn('origin').execute();
}
