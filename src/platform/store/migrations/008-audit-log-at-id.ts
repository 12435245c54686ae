import type { Kysely } from 'kysely';

/**
 * The audit log read in (at, id) order, a page at a time after the last row read (exports), and deleted
 * oldest first (retention): one index serves both, without sorting the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('audit_log_at_id').on('audit_log').columns(['at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_at_id').execute();
}
