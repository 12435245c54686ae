import type { Kysely } from 'kysely';

/**
 * A finished deletion records how many of its customers the Mint service said it did not find
 * (`not_found_count`), so that every message says how many were really deleted. Null: the service's answer
 * named none as not found (and requests finished before this column: their detail line says what it said).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deletion_requests').addColumn('not_found_count', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deletion_requests').dropColumn('not_found_count').execute();
}
