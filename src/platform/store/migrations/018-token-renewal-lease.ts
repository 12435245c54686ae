import type { Kysely } from 'kysely';

/**
 * With token rotation, Slack takes each refresh token once: of two replicas renewing the same installation's
 * token, one would be refused (`invalid_refresh_token`). `renewal_until` is the lease of the replica renewing
 * it (the database's time, ISO text like the other time columns; null: nobody is), taken with a
 * compare-and-set on the stored refresh tokens, so one replica renews and the others wait for its new token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('installations').addColumn('renewal_until', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('installations').dropColumn('renewal_until').execute();
}
