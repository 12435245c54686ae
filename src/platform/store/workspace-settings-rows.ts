import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../changes/change-feed.js';
import { databaseNow } from './database-now.js';
import type { Tables } from './tables.js';
import { z } from 'zod';
import { parseJson } from './stored-json.js';

/** One setting an admin set in Slack: its value (JSON), who set it and when. */
export interface StoredSetting {
  value: unknown;
  by: string;
  /** ISO 8601 UTC. */
  at: string;
}

/** A workspace's row: the settings set in Slack by name, and the version they make. */
export interface StoredWorkspaceSettings {
  teamId: string;
  version: number;
  settings: Record<string, StoredSetting>;
  updatedBy: string;
  updatedAt: Date;
}

/**
 * The settings administered in Slack, one row per workspace. A save names the version it was made from and
 * writes only if the row still has it (compare-and-set; version 0 = no row yet): of two admins saving from
 * the same version, on any replicas, exactly one writes, and the other is told the settings changed meanwhile.
 * Call `save` inside a transaction, with its audit entry.
 */
export class WorkspaceSettingsRows {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
    /** Every replica learns of a save at once (the settings are read synchronously from what each keeps). */
    private readonly changes: Pick<ChangeFeed, 'announce' | 'engine'>,
  ) {}

  async get(teamId: string): Promise<StoredWorkspaceSettings | undefined> {
    const row = await this.db
      .selectFrom('workspace_settings')
      .selectAll()
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row ? toStored(row) : undefined;
  }

  async all(): Promise<StoredWorkspaceSettings[]> {
    const rows = await this.db.selectFrom('workspace_settings').selectAll().orderBy('team_id').execute();
    return rows.map((row) => toStored(row));
  }

  /** Every workspace's version: what a replica compares with what it keeps when it may have missed a change. */
  async versions(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('workspace_settings').select(['team_id', 'version']).execute();
    return new Map(rows.map((r) => [r.team_id, Number(r.version)]));
  }

  /**
   * Writes `settings` as version `fromVersion + 1` if the row is still at `fromVersion`; returns the row
   * written, or undefined when another save came first (nothing written).
   */
  async save(
    teamId: string,
    fromVersion: number,
    settings: Record<string, StoredSetting>,
    by: string,
  ): Promise<StoredWorkspaceSettings | undefined> {
    const values = {
      version: fromVersion + 1,
      settings: JSON.stringify(settings),
      updated_by: by,
      updated_at: databaseNow(this.engine),
    };
    const result =
      fromVersion === 0
        ? await this.db
            .insertInto('workspace_settings')
            .values({ team_id: teamId, ...values })
            .onConflict((oc) => oc.column('team_id').doNothing())
            .executeTakeFirst()
        : await this.db
            .updateTable('workspace_settings')
            .set(values)
            .where('team_id', '=', teamId)
            .where('version', '=', fromVersion)
            .executeTakeFirst();
    const written = 'numInsertedOrUpdatedRows' in result ? result.numInsertedOrUpdatedRows : result.numUpdatedRows;
    if (Number(written ?? 0) !== 1) return undefined;
    await this.changes.announce(this.db, { topic: 'workspace-settings', id: teamId });
    return this.get(teamId);
  }
}

/**
 * The stored settings, read back through their shape: a value that does not fit is skipped by the settings model
 * (the default applies); a row whose JSON is not this shape at all reads as no settings changed.
 */
const storedSettingsSchema = z.record(z.string(), z.object({ value: z.unknown(), by: z.string(), at: z.string() }));

function toStored(row: Tables['workspace_settings']): StoredWorkspaceSettings {
  return {
    teamId: row.team_id,
    version: Number(row.version),
    settings: parseJson(row.settings, storedSettingsSchema) ?? {},
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at),
  };
}
