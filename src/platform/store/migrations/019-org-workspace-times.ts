import type { Kysely } from 'kysely';

/**
 * Enterprise Grid workspaces joining and leaving an org-wide installation, in the order they happened whatever
 * order Slack delivers the events in (a retry comes minutes late):
 * - `installation_teams.joined_at`: when the workspace was recorded as the installation's (the database's
 *   clock: its first listing by auth.teams.list, or team_access_granted); a leave that Slack says happened
 *   before then is about an earlier membership, and changes nothing;
 * - `installation_team_departures`: when Slack says a workspace left an installation (its event_time, ISO text
 *   like the other time columns), so that a team_access_granted that happened before it changes nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('installation_teams').addColumn('joined_at', 'text').execute();
  await db.schema
    .createTable('installation_team_departures')
    .addColumn('team_id', 'text', (c) => c.notNull())
    .addColumn('installation_id', 'text', (c) => c.notNull())
    .addColumn('left_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('installation_team_departures_pk', ['team_id', 'installation_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('installation_team_departures').execute();
  await db.schema.alterTable('installation_teams').dropColumn('joined_at').execute();
}
