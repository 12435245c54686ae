import type { Kysely } from 'kysely';

/**
 * Quorum and reminders of deletion requests. On the request: how many approvals it needs (fixed when it is
 * made; requests from before need one, as they did), how many it has and from whom (moved together by one
 * compare-and-set). Each approval also gets a row of its own (who, when), and each reminder sent a row, so
 * it is sent once whatever restarts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('deletion_requests')
    .addColumn('approvals_needed', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('deletion_requests')
    .addColumn('approvals', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // JSON array of the approvers' user ids, in the order they approved.
  await db.schema
    .alterTable('deletion_requests')
    .addColumn('approved_by', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .createTable('deletion_approvals')
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('approver_id', 'text', (c) => c.notNull())
    .addColumn('approved_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('deletion_approvals_pk', ['request_id', 'approver_id'])
    .execute();
  await db.schema
    .createTable('deletion_reminders')
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('deletion_reminders_pk', ['request_id', 'kind'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('deletion_reminders').execute();
  await db.schema.dropTable('deletion_approvals').execute();
  for (const column of ['approved_by', 'approvals', 'approvals_needed'])
    await db.schema.alterTable('deletion_requests').dropColumn(column).execute();
}
