import type { Kysely } from 'kysely';

/**
 * Distribution mode's installations (Bolt's InstallationStore), one row per workspace, or per Enterprise Grid
 * organization for an org-wide install. Tokens are stored sealed (src/platform/secrets/secret-box.ts), never in clear;
 * `details` is the rest of Bolt's Installation as JSON, without any secret.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('installations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text')
    .addColumn('enterprise_id', 'text')
    .addColumn('is_enterprise_install', 'integer', (c) => c.notNull())
    .addColumn('installer_id', 'text', (c) => c.notNull())
    .addColumn('bot_token', 'text')
    .addColumn('bot_refresh_token', 'text')
    .addColumn('user_token', 'text')
    .addColumn('user_refresh_token', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('installed_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('installations_enterprise_id').on('installations').column('enterprise_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('installations').execute();
}
