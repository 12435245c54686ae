import type { Kysely } from 'kysely';

/**
 * Serving many workspaces (distribution mode):
 * - `mint_accounts`: each workspace's own Mint account, its API key sealed (src/platform/secrets/secret-box.ts), the
 *   last four characters kept apart for display, and when the service last refused the key;
 * - `installation_teams`: which org-wide (Enterprise Grid) installation serves a workspace, learnt from its
 *   requests, so background work finds that workspace's token;
 * - `once_keys.team_id`: the workspace a once-only key was claimed for (every stored row carries its workspace).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mint_accounts')
    .addColumn('team_id', 'text', (c) => c.primaryKey())
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    .addColumn('key_last4', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text')
    .addColumn('connected_by', 'text', (c) => c.notNull())
    .addColumn('connected_at', 'text', (c) => c.notNull())
    .addColumn('refused_at', 'text')
    .addColumn('refused_status', 'integer')
    .execute();
  await db.schema
    .createTable('installation_teams')
    .addColumn('team_id', 'text', (c) => c.primaryKey())
    .addColumn('installation_id', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('installation_teams_installation_id')
    .on('installation_teams')
    .column('installation_id')
    .execute();
  await db.schema.alterTable('once_keys').addColumn('team_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('once_keys').dropColumn('team_id').execute();
  await db.schema.dropTable('installation_teams').execute();
  await db.schema.dropTable('mint_accounts').execute();
}
