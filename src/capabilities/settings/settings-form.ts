import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { SETTINGS } from './actions.js';
import type { ViewOutput } from '@slack/bolt';
import { context, divider, header, section } from '../../platform/blocks/blocks.js';
import { LIMITS, truncate } from '../../platform/blocks/limits.js';
import { modal } from '../../platform/blocks/modal.js';
import {
  type EffectiveSettings,
  type People,
  type SettingName,
  type WorkspaceSettings,
  LARGE_AT_RANGE,
  MAX_LISTED,
  QUORUM_RANGE,
  REMIND_HOURS_RANGE,
  SETTING_DESCRIPTIONS,
  SETTING_NAMES,
  TTL_HOURS_RANGE,
  describeValue,
} from '../../tenancy/workspaces/settings-model.js';
import { fieldOf, isRecord, numberFieldOf } from '../../platform/unknown-fields.js';

const VALUE = 'value';

/** The form's inputs. Block ids carry the version shown, so a form shown again shows the values afresh. */
export const FIELDS = {
  approverUsers: 'approvers_users',
  approverGroups: 'approvers_groups',
  channel: 'approval_channel',
  quorum: 'quorum',
  largeQuorum: 'quorum_large',
  largeAt: 'large_at',
  ttlHours: 'ttl_hours',
  remindHours: 'remind_hours',
  viewerUsers: 'viewers_users',
  viewerGroups: 'viewers_groups',
  bulkConcurrency: 'bulk_concurrency',
  adminUsers: 'admins_users',
  adminGroups: 'admins_groups',
} as const;
export type Field = (typeof FIELDS)[keyof typeof FIELDS];

/** The block id of `field` in the form made from `version`. */
export const blockId = (field: Field, version: number) => `${field}.v${version}`;

/** What the form carries through Slack: the version it was made from (for the compare-and-set). */
export function formMetadata(version: number): string {
  return JSON.stringify({ version });
}

export function versionOf(privateMetadata: string | undefined): number | undefined {
  try {
    const version = numberFieldOf(JSON.parse(privateMetadata ?? ''), 'version');
    return version !== undefined && Number.isSafeInteger(version) && version >= 0 ? version : undefined;
  } catch {
    return undefined;
  }
}

/** A user group's name for the pickers (plain text: options cannot mention). */
export type GroupNames = (id: string) => string | undefined;

const plain = (text: string) => ({ type: 'plain_text' as const, text: truncate(text, LIMITS.inputLabel), emoji: true });

function input(
  field: Field,
  version: number,
  label: string,
  element: InputBlock['element'],
  hint?: string,
): InputBlock {
  return {
    type: 'input',
    block_id: blockId(field, version),
    label: plain(label),
    optional: true,
    ...(hint ? { hint: plain(hint) } : {}),
    element,
  };
}

const placeholder = (text: string) => ({ placeholder: { type: 'plain_text' as const, text } });

function usersInput(field: Field, version: number, label: string, users: string[], hint: string): InputBlock {
  return input(
    field,
    version,
    label,
    {
      type: 'multi_users_select',
      action_id: VALUE,
      max_selected_items: MAX_LISTED,
      ...(users.length > 0 ? { initial_users: users.slice(0, MAX_LISTED) } : {}),
      ...placeholder('Choose people'),
    },
    hint,
  );
}

export function groupOption(id: string, names: GroupNames): PlainTextOption {
  return { text: { type: 'plain_text', text: truncate(names(id) ?? id, LIMITS.optionText) }, value: id };
}

function groupsInput(
  field: Field,
  version: number,
  label: string,
  groups: string[],
  names: GroupNames,
  hint: string,
): InputBlock {
  return input(
    field,
    version,
    label,
    {
      type: 'multi_external_select',
      action_id: SETTINGS.options.userGroups.actionId,
      min_query_length: 0,
      max_selected_items: MAX_LISTED,
      ...(groups.length > 0 ? { initial_options: groups.slice(0, MAX_LISTED).map((g) => groupOption(g, names)) } : {}),
      ...placeholder('Choose user groups'),
    },
    hint,
  );
}

function numberInput(
  field: Field,
  version: number,
  label: string,
  initial: number | undefined,
  range: { min: number; max: number },
  hint: string,
  decimal = false,
): InputBlock {
  return input(
    field,
    version,
    label,
    {
      type: 'number_input',
      action_id: VALUE,
      is_decimal_allowed: decimal,
      min_value: String(range.min),
      max_value: String(range.max),
      ...(initial !== undefined ? { initial_value: String(initial) } : {}),
    },
    hint,
  );
}

const sourceLine = (settings: EffectiveSettings, name: SettingName) => {
  const source = settings.sources[name];
  return source.from === 'slack' ? `set by <@${source.by}>` : `default from ${SETTING_DESCRIPTIONS[name].env}`;
};

/**
 * The settings form, filled with the settings in force. `problem`: a banner above (a save that found the
 * settings changed meanwhile). `maxConcurrency`: the bulk concurrency's ceiling on this deployment.
 */
export function settingsFormView(
  settings: EffectiveSettings,
  options: { names: GroupNames; maxConcurrency: number; problem?: string },
): ModalView {
  const v = settings.values;
  const n = settings.version;
  const viewers = v.auditViewers ?? { users: [], userGroups: [] };
  const blocks: KnownBlock[] = [
    ...(options.problem ? [section(`:warning: ${options.problem}`)] : []),
    section(
      'Changes apply to new deletion requests at once, on every instance of the app. Requests already waiting keep the quorum, approvers and expiry they were opened with. Each change is recorded in the audit log and announced in the approval channel.',
    ),
    header('Deletion approval'),
    usersInput(FIELDS.approverUsers, n, 'Approvers', v.approvers.users, 'Who may approve customer deletions.'),
    groupsInput(
      FIELDS.approverGroups,
      n,
      'Approver user groups',
      v.approvers.userGroups,
      options.names,
      'Their members may approve too.',
    ),
    input(
      FIELDS.channel,
      n,
      'Approval channel',
      {
        type: 'conversations_select',
        action_id: VALUE,
        filter: { include: ['public', 'private'], exclude_bot_users: true },
        ...(v.approvalChannelId ? { initial_conversation: v.approvalChannelId } : {}),
        ...placeholder('Choose a channel'),
      },
      'Where deletion requests wait for approval. Invite the app there first (/invite @Mintlink).',
    ),
    numberInput(
      FIELDS.quorum,
      n,
      'Approvals needed',
      v.quorum.approvals,
      QUORUM_RANGE,
      'Approvals from different approvers; the requester never counts.',
    ),
    numberInput(
      FIELDS.largeQuorum,
      n,
      'Approvals needed for large requests',
      v.quorum.large?.approvals,
      QUORUM_RANGE,
      'Optional; at least the approvals above. Set it with the size below.',
    ),
    numberInput(
      FIELDS.largeAt,
      n,
      'Large requests: from how many customers',
      v.quorum.large?.fromCustomers,
      LARGE_AT_RANGE,
      'Requests of this many customers or more need the approvals above.',
    ),
    numberInput(
      FIELDS.ttlHours,
      n,
      'Requests expire after (hours)',
      v.requestTtlHours,
      TTL_HOURS_RANGE,
      'A request nobody decided in this time expires, and nothing is deleted.',
    ),
    numberInput(
      FIELDS.remindHours,
      n,
      'Remind approvers after (hours)',
      v.remindAfterHours,
      REMIND_HOURS_RANGE,
      "One reminder in the request's thread; 0 for none. Fractions such as 1.5 are fine.",
      true,
    ),
    divider(),
    header('Audit log'),
    usersInput(
      FIELDS.viewerUsers,
      n,
      'Audit viewers',
      viewers.users,
      'Who may export the audit log. Nobody named here: the approvers.',
    ),
    groupsInput(
      FIELDS.viewerGroups,
      n,
      'Audit viewer user groups',
      viewers.userGroups,
      options.names,
      'Their members may export it too.',
    ),
    divider(),
    header('Bulk jobs'),
    numberInput(
      FIELDS.bulkConcurrency,
      n,
      'Mint calls at once (all replicas)',
      v.bulkConcurrency,
      { min: 1, max: options.maxConcurrency },
      `From 1 to ${options.maxConcurrency} on this deployment.`,
    ),
    divider(),
    header('Settings admins'),
    usersInput(
      FIELDS.adminUsers,
      n,
      'Settings admins',
      v.settingsAdmins.users,
      "Who may change these settings. Nobody named: the workspace's admins and owners.",
    ),
    groupsInput(
      FIELDS.adminGroups,
      n,
      'Settings admin user groups',
      v.settingsAdmins.userGroups,
      options.names,
      'Their members may change them too.',
    ),
    context(
      SETTING_NAMES.map((name) => `${SETTING_DESCRIPTIONS[name].title}: ${sourceLine(settings, name)}`).join(' · '),
    ),
  ];
  return modal({
    callbackId: SETTINGS.forms.save.callbackId,
    title: 'Mintlink settings',
    submit: 'Save',
    blocks,
    privateMetadata: formMetadata(settings.version),
  });
}

/** The settings shown, not changeable: SETTINGS_SOURCE=env. */
export function readOnlySettingsView(settings: EffectiveSettings): ModalView {
  const lines = SETTING_NAMES.map(
    (name) =>
      `• *${capitalize(SETTING_DESCRIPTIONS[name].title)}*: ${describeValue(name, settings.values, 'slack')} _(${SETTING_DESCRIPTIONS[name].env})_`,
  );
  return modal({
    title: 'Mintlink settings',
    close: 'Close',
    blocks: [
      section(
        ":lock: These settings are managed by the app's operator in its environment (`SETTINGS_SOURCE=env`), so they cannot be changed here. Ask the operator to change the variables named below.",
      ),
      section(lines.join('\n')),
    ],
  });
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

type Values = ViewOutput['state']['values'];

/** A submitted form as typed, before any check (forged payloads may hold anything). */
export interface SubmittedSettings {
  approvers: { users: unknown; userGroups: unknown };
  channel: unknown;
  quorum: unknown;
  largeQuorum: unknown;
  largeAt: unknown;
  ttlHours: unknown;
  remindHours: unknown;
  viewers: { users: unknown; userGroups: unknown };
  bulkConcurrency: unknown;
  admins: { users: unknown; userGroups: unknown };
}

/** Reads the form made from `version` (each input by its block id, whatever its action id). */
export function readSettingsForm(values: Values, version: number): SubmittedSettings {
  const state = (field: Field): Record<string, unknown> | undefined => {
    const block = values[blockId(field, version)];
    const first = block ? Object.values(block)[0] : undefined;
    return isRecord(first) ? first : undefined;
  };
  const users = (field: Field) => state(field)?.selected_users ?? [];
  const groups = (field: Field) => {
    const options = state(field)?.selected_options ?? [];
    return Array.isArray(options) ? options.map((o) => fieldOf(o, 'value')) : options;
  };
  const number = (field: Field) => state(field)?.value ?? null;
  return {
    approvers: { users: users(FIELDS.approverUsers), userGroups: groups(FIELDS.approverGroups) },
    channel: state(FIELDS.channel)?.selected_conversation ?? null,
    quorum: number(FIELDS.quorum),
    largeQuorum: number(FIELDS.largeQuorum),
    largeAt: number(FIELDS.largeAt),
    ttlHours: number(FIELDS.ttlHours),
    remindHours: number(FIELDS.remindHours),
    viewers: { users: users(FIELDS.viewerUsers), userGroups: groups(FIELDS.viewerGroups) },
    bulkConcurrency: number(FIELDS.bulkConcurrency),
    admins: { users: users(FIELDS.adminUsers), userGroups: groups(FIELDS.adminGroups) },
  };
}

/** Which input shows the problem of a setting's value. */
export const FIELD_OF: Record<SettingName, Field> = {
  approvers: FIELDS.approverUsers,
  approvalChannelId: FIELDS.channel,
  quorum: FIELDS.quorum,
  requestTtlHours: FIELDS.ttlHours,
  remindAfterHours: FIELDS.remindHours,
  auditViewers: FIELDS.viewerUsers,
  bulkConcurrency: FIELDS.bulkConcurrency,
  settingsAdmins: FIELDS.adminUsers,
};

export type { People, WorkspaceSettings };
