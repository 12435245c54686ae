import type { Kysely } from 'kysely';

/**
 * Settings administered in Slack, one row per workspace (its team id): the values an admin set, over the
 * environment's defaults, and a version moved by compare-and-set at each save. And on each deletion request,
 * the approvers in force when it was opened (null on requests from before: they follow the settings).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspace_settings')
    .addColumn('team_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('deletion_requests').addColumn('approvers', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deletion_requests').dropColumn('approvers').execute();
  await db.schema.dropTable('workspace_settings').execute();
}
