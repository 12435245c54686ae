import { z } from 'zod';
import type { Config, DeletionApprovers, DeletionQuorum } from '../../platform/ops/config/config.js';
import type { StoredSetting, StoredWorkspaceSettings } from '../../platform/store/workspace-settings-rows.js';

/*
 * The settings a workspace's admins change from App Home: who approves deletions and where, the quorum,
 * expiry and reminders, who may export the audit log, the bulk concurrency, and who administers all this.
 * The environment gives the defaults; what an admin set in Slack is stored per workspace and wins (unless
 * SETTINGS_SOURCE=env, where the environment is the only source).
 */

/** Users and user groups (approvers, audit viewers, settings admins). */
export type People = DeletionApprovers;

export interface WorkspaceSettings {
  approvers: People;
  /** Where deletion requests wait; undefined: deletion is not set up. */
  approvalChannelId: string | undefined;
  quorum: DeletionQuorum;
  requestTtlHours: number;
  /** 0: no reminders. */
  remindAfterHours: number;
  /** Undefined: whoever the approvers are. */
  auditViewers: People | undefined;
  /** Mint calls a workspace's bulk jobs make at once, all replicas together. */
  bulkConcurrency: number;
  /** Who may change these; empty: the workspace's admins and owners. */
  settingsAdmins: People;
}

export type SettingName = keyof WorkspaceSettings;

/** In the order the modal, the messages and `npm run settings -- show` list them. */
export const SETTING_NAMES: readonly SettingName[] = [
  'approvers',
  'approvalChannelId',
  'quorum',
  'requestTtlHours',
  'remindAfterHours',
  'auditViewers',
  'bulkConcurrency',
  'settingsAdmins',
];

/** What each setting is called in messages, and the variables that give its default. */
export const SETTING_DESCRIPTIONS: Record<SettingName, { title: string; env: string }> = {
  approvers: { title: 'the deletion approvers', env: 'DELETION_APPROVERS' },
  approvalChannelId: { title: 'the approval channel', env: 'APPROVAL_CHANNEL_ID' },
  quorum: { title: 'the quorum', env: 'DELETION_QUORUM, DELETION_QUORUM_LARGE, DELETION_LARGE_AT' },
  requestTtlHours: { title: 'the expiry of deletion requests', env: 'DELETION_REQUEST_TTL_HOURS' },
  remindAfterHours: { title: 'the reminder', env: 'DELETION_REMIND_AFTER_HOURS' },
  auditViewers: { title: 'the audit viewers', env: 'AUDIT_VIEWERS' },
  bulkConcurrency: { title: 'the bulk concurrency', env: 'BULK_CONCURRENCY' },
  settingsAdmins: { title: 'the settings admins', env: 'SETTINGS_ADMINS' },
};

/** The most users, and the most user groups, one list may name. */
export const MAX_LISTED = 100;
export const QUORUM_RANGE = { min: 1, max: 20 } as const;
export const LARGE_AT_RANGE = { min: 1, max: 1000 } as const;
export const TTL_HOURS_RANGE = { min: 1, max: 720 } as const;
export const REMIND_HOURS_RANGE = { min: 0, max: 720 } as const;

/** The bulk concurrency's ceiling: 50, and half the work budget (bulk jobs leave as many places to people). */
export function maxBulkConcurrency(config: Pick<Config, 'maxWorkInFlight'>): number {
  return Math.max(1, Math.min(50, Math.floor(config.maxWorkInFlight / 2)));
}

const userId = z.string().regex(/^[UW][A-Z0-9]{2,}$/);
const groupId = z.string().regex(/^S[A-Z0-9]{2,}$/);
const people = z.object({ users: z.array(userId).max(MAX_LISTED), userGroups: z.array(groupId).max(MAX_LISTED) });
const whole = (range: { min: number; max: number }) => z.number().int().min(range.min).max(range.max);

/** How each stored value must look: a value that does not (written by another version?) is not used. */
const storedSchemas: { [K in SettingName]: z.ZodType<WorkspaceSettings[K]> } = {
  approvers: people,
  approvalChannelId: z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/)
    .nullable()
    .transform((v) => v ?? undefined),
  quorum: z
    .object({
      approvals: whole(QUORUM_RANGE),
      large: z
        .object({ approvals: whole(QUORUM_RANGE), fromCustomers: whole(LARGE_AT_RANGE) })
        .nullable()
        .transform((v) => v ?? undefined),
    })
    .refine((q) => !q.large || q.large.approvals >= q.approvals),
  requestTtlHours: whole(TTL_HOURS_RANGE),
  remindAfterHours: z.number().min(REMIND_HOURS_RANGE.min).max(REMIND_HOURS_RANGE.max),
  auditViewers: people.nullable().transform((v) => v ?? undefined),
  bulkConcurrency: z.number().int().min(1).max(50),
  settingsAdmins: people,
};

/** A value as it is stored (JSON has no undefined: null stands for it). */
export function storedValue<K extends SettingName>(_name: K, value: WorkspaceSettings[K]): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value, (_k, v: unknown) => v ?? null));
}

/** The environment's values: the defaults, and the only source with SETTINGS_SOURCE=env. */
export function envDefaults(config: Config): WorkspaceSettings {
  return {
    approvers: config.deletion.approvers,
    approvalChannelId: config.deletion.approvalChannelId,
    quorum: config.deletion.quorum,
    requestTtlHours: config.deletion.requestTtlHours,
    remindAfterHours: config.deletion.remindAfterHours,
    auditViewers: config.audit.viewersAreApprovers ? undefined : config.audit.viewers,
    bulkConcurrency: Math.min(config.bulk.concurrency, maxBulkConcurrency(config)),
    settingsAdmins: config.settings.admins,
  };
}

/** Where a value comes from: the environment, or an admin in Slack (who, when). */
export type SettingSource = { from: 'env' } | { from: 'slack'; by: string; at: Date };

/** A workspace's settings in force, where each comes from, and the version they are (0: none set in Slack). */
export interface EffectiveSettings {
  teamId: string | undefined;
  version: number;
  values: WorkspaceSettings;
  sources: Record<SettingName, SettingSource>;
  /** Who saved last, and when (undefined for version 0). */
  updatedBy: string | undefined;
  updatedAt: Date | undefined;
}

/**
 * The environment's defaults with what was set in Slack on top (a stored value that does not fit its
 * setting is skipped and named in `skipped`). With `envOnly`, the stored values are not used at all.
 */
export function effectiveSettings(
  defaults: WorkspaceSettings,
  teamId: string | undefined,
  row: StoredWorkspaceSettings | undefined,
  envOnly = false,
): EffectiveSettings & { skipped: SettingName[] } {
  const values: WorkspaceSettings = { ...defaults };
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Object.fromEntries types its keys as string: they are exactly SETTING_NAMES
  const sources = Object.fromEntries(SETTING_NAMES.map((n) => [n, { from: 'env' }])) as Record<
    SettingName,
    SettingSource
  >;
  const skipped: SettingName[] = [];
  if (row && !envOnly) {
    for (const name of SETTING_NAMES) {
      const stored: StoredSetting | undefined = row.settings[name];
      if (!stored) continue;
      const parsed = storedSchemas[name].safeParse(stored.value);
      if (!parsed.success) {
        skipped.push(name);
        continue;
      }
      setValue(values, name, parsed.data);
      sources[name] = { from: 'slack', by: stored.by, at: new Date(stored.at) };
    }
  }
  return {
    teamId,
    version: envOnly ? 0 : (row?.version ?? 0),
    values,
    sources,
    updatedBy: envOnly ? undefined : row?.updatedBy,
    updatedAt: envOnly ? undefined : row?.updatedAt,
    skipped,
  };
}

export function setValue<K extends SettingName>(values: WorkspaceSettings, name: K, value: WorkspaceSettings[K]): void {
  values[name] = value;
}

/** Who may export the audit log: the viewers, or the approvers when none are named. */
export function auditViewersOf(values: WorkspaceSettings): People {
  return values.auditViewers ?? values.approvers;
}

/** Whether two values of a setting are the same (lists in any order). */
export function sameValue(a: unknown, b: unknown): boolean {
  const canonical = (value: unknown): string =>
    JSON.stringify(value ?? null, (_k, v: unknown) =>
      Array.isArray(v) ? v.map((item: unknown) => String(item)).sort() : (v ?? null),
    );
  return canonical(a) === canonical(b);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A setting's value in words: `slack` with mentions (<@U1>, <#C1>, <!subteam^S1>) for messages and views,
 * `plain` with bare ids for the terminal.
 */
/** People and groups named in a message for one value, at most. */
const MENTIONS_SHOWN = 5;

export function describeValue(name: SettingName, values: WorkspaceSettings, style: 'slack' | 'plain'): string {
  const user = (id: string) => (style === 'slack' ? `<@${id}>` : id);
  const group = (id: string) => (style === 'slack' ? `<!subteam^${id}>` : `${id} (user group)`);
  const list = (p: People, none: string) => {
    const named = [...p.users.map((id) => user(id)), ...p.userGroups.map((id) => group(id))];
    // A message names a few (each a mention that notifies); the audit log's plain text keeps them all.
    if (style === 'slack' && named.length > MENTIONS_SHOWN)
      return `${named.slice(0, MENTIONS_SHOWN).join(', ')} and ${named.length - MENTIONS_SHOWN} more`;
    return named.join(', ') || none;
  };
  switch (name) {
    case 'approvers':
      return list(values.approvers, 'nobody');
    case 'approvalChannelId':
      return values.approvalChannelId
        ? style === 'slack'
          ? `<#${values.approvalChannelId}>`
          : values.approvalChannelId
        : 'none';
    case 'quorum': {
      const { approvals, large } = values.quorum;
      return `${plural(approvals, 'approval')}${large ? ` (${large.approvals} from ${plural(large.fromCustomers, 'customer')} up)` : ''}`;
    }
    case 'requestTtlHours':
      return plural(values.requestTtlHours, 'hour');
    case 'remindAfterHours':
      return values.remindAfterHours > 0 ? `after ${plural(values.remindAfterHours, 'hour')}` : 'off';
    case 'auditViewers':
      return values.auditViewers ? list(values.auditViewers, 'nobody') : 'the deletion approvers';
    case 'bulkConcurrency':
      return `${plural(values.bulkConcurrency, 'Mint call')} at once`;
    case 'settingsAdmins':
      return list(values.settingsAdmins, "the workspace's admins and owners");
  }
}
