import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../platform/ops/config/config.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { Store } from '../../platform/store/store.js';
import type { AuditEntryInput } from '../../platform/store/audit-log.js';
import type { StoredSetting, StoredWorkspaceSettings } from '../../platform/store/workspace-settings-rows.js';
import { type EffectiveSettings, type WorkspaceSettings, effectiveSettings, envDefaults } from './settings-model.js';

export interface WorkspaceSettingsOptions {
  /** How often a replica tries again what failed: asking Slack its workspace, reading a changed row. */
  retryMs?: number;
}

/** What failed (Slack's answer, a read of a changed row) is tried again within this; no query when nothing did. */
export const DEFAULT_RETRY_MS = 1_000;

/**
 * The settings in force, per workspace, read synchronously by every capability: kept in memory, and brought up
 * to date by the change feed (a save on any replica is read again on every other as soon as it is announced,
 * without a restart), at once on the replica that saved it, and by comparing the versions when the feed may
 * have missed a change. Until the database answers, the environment's values are in force.
 *
 * In single-workspace mode, a caller without a team id gets the bot token's workspace's settings (its team id
 * from auth.test).
 */
export class WorkspaceSettingsSource {
  readonly defaults: WorkspaceSettings;
  /** The rows of workspace_settings, all of them: bounded by that table (a row per workspace set up). */
  private readonly rows = new Map<string, StoredWorkspaceSettings>();
  /**
   * What `current` gave per workspace, until its row changes (read on every click and Home tab); the least
   * recently used are computed again past the bound.
   */
  private readonly computed = new LRUCache<string, EffectiveSettings>({ max: 10_000 });
  private homeTeam: string | undefined;
  private quietUntil = 0;
  private readonly retryMs: number;
  /**
   * Rows may be out of date (not read yet, or a change told by the feed could not be read with the database
   * away): every row is compared at the next try.
   */
  private missed = true;

  constructor(
    private readonly config: Config,
    private readonly store: Store,
    private readonly client: WebClient,
    private readonly logger: Logger,
    options: WorkspaceSettingsOptions = {},
  ) {
    this.defaults = envDefaults(config);
    this.retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
    store.changes.on('workspace-settings', (team) => void this.readChanged(team));
    store.changes.onCatchUp(() => this.readChangedRows());
  }

  /** SETTINGS_SOURCE=env: the environment is the only source; nothing can be changed in Slack. */
  get envOnly(): boolean {
    return this.config.settings.source === 'env';
  }

  /** The workspace the app's bot token belongs to, once auth.test has said. */
  get homeTeamId(): string | undefined {
    return this.homeTeam;
  }

  /** The settings in force in `teamId` (the app's own workspace when undefined). */
  current(teamId?: string): EffectiveSettings {
    const team = teamId ?? this.homeTeam;
    if (!team) return effectiveSettings(this.defaults, undefined, undefined, this.envOnly);
    let settings = this.computed.get(team);
    if (!settings) {
      settings = effectiveSettings(this.defaults, team, this.rows.get(team), this.envOnly);
      this.computed.set(team, settings);
    }
    return settings;
  }

  /** The settings read from the database now (a save compares with these). */
  async fresh(teamId: string): Promise<EffectiveSettings> {
    const row = await this.store.workspaceSettingsRows.get(teamId);
    if (row) this.remember(row);
    return effectiveSettings(this.defaults, teamId, row, this.envOnly);
  }

  /**
   * Saves the settings `changed` by `by` over the version `fromVersion` a form was made from (compare-and-set:
   * undefined, and nothing written, when another save landed since), with the audit entry the saved row makes, in
   * one transaction. The row saved is in force at once on this replica. It checks no right: the caller has checked
   * that `by` may change the settings (a fresh settings-admin check, save-settings.ts).
   */
  async save(
    teamId: string,
    fromVersion: number,
    changed: Readonly<Record<string, StoredSetting>>,
    by: string,
    audit: (saved: StoredWorkspaceSettings) => AuditEntryInput,
  ): Promise<StoredWorkspaceSettings | undefined> {
    const saved = await this.store.transaction(async (tx) => {
      const row = await tx.workspaceSettingsRows.get(teamId);
      if ((row?.version ?? 0) !== fromVersion) return undefined;
      const written = await tx.workspaceSettingsRows.save(teamId, fromVersion, { ...row?.settings, ...changed }, by);
      if (written) await tx.audit.record(audit(written));
      return written;
    });
    if (saved) this.remember(saved);
    return saved;
  }

  /** A row just saved here: in force at once on this replica (the others learn it from the change feed). */
  remember(row: StoredWorkspaceSettings): void {
    const known = this.rows.get(row.teamId);
    if (known && known.version >= row.version) return;
    this.rows.set(row.teamId, row);
    this.computed.delete(row.teamId);
  }

  /** Asks Slack for the app's workspace until it has answered, and reads every row whose version moved. */
  async refresh(): Promise<void> {
    // Slack's answer and the database's are independent: either may come while the other is away. In
    // distribution mode there is no one bot token, and every caller names its workspace.
    if (!this.homeTeam && !this.config.distribution)
      this.homeTeam = await this.client.auth.test().then(
        (r) => r.team_id,
        () => undefined,
      );
    if (!this.envOnly) await this.readChangedRows();
  }

  /** One workspace's row, told changed by the feed; when it cannot be read now, every row is compared later. */
  private async readChanged(team: string): Promise<void> {
    if (this.envOnly) return;
    try {
      const row = await this.store.workspaceSettingsRows.get(team);
      if (row) this.noteRead(team, row);
    } catch (error) {
      this.missed = true;
      this.failed(error);
    }
  }

  private noteRead(team: string, row: StoredWorkspaceSettings): void {
    this.remember(row);
    const skipped = effectiveSettings(this.defaults, team, row).skipped;
    if (skipped.length > 0)
      this.logger.warn({ team, skipped }, 'stored settings that do not fit are ignored (the defaults apply)');
  }

  private async readChangedRows(): Promise<void> {
    if (this.envOnly) return;
    for (const [team, version] of await this.store.workspaceSettingsRows.versions()) {
      if (this.rows.get(team)?.version === version) continue;
      const row = await this.store.workspaceSettingsRows.get(team);
      if (row) this.noteRead(team, row);
    }
    this.missed = false;
  }

  private failed(error: unknown): void {
    if (Date.now() < this.quietUntil) return;
    this.quietUntil = Date.now() + 60_000; // the database away for a while: one line a minute
    this.logger.warn({ err: error }, 'could not read the workspace settings; the last ones read stay in force');
  }

  /**
   * What failed, tried again every `retryMs` as background work: Slack's answer naming the app's workspace
   * (single-workspace mode), every row compared after a change could not be read. Nothing when nothing failed.
   */
  retryJob(): Job {
    return {
      name: 'workspace settings retried',
      everyMs: this.retryMs,
      atStart: false,
      run: async () => {
        if (!this.homeTeam && !this.config.distribution) await this.refresh();
        else if (this.missed) await this.readChangedRows();
      },
      failed: (error) => {
        this.missed = true;
        this.failed(error);
      },
    };
  }
}
