import type { DeletionApprovers, DeletionQuorum } from '../../platform/ops/config/config.js';
import type { WorkspaceSettings } from '../../tenancy/workspaces/settings-model.js';

export const MAX_REASON_LENGTH = 1000;

export interface DeletionSettings {
  approvalChannelId: string;
  approvers: DeletionApprovers;
  requestTtlHours: number;
  quorum: DeletionQuorum;
  remindAfterHours: number;
}

/** The deletion settings of a workspace, or what is missing there. */
export type DeletionSettingsCheck = { ok: true; settings: DeletionSettings } | { ok: false; missing: string[] };

/**
 * The deletion settings in force, or what is missing: deletion needs an approval channel and at least one
 * approver. (Read afresh for each request: admins change them from App Home.)
 */
export function deletionSettings(settings: WorkspaceSettings): DeletionSettingsCheck {
  const { approvalChannelId, approvers, requestTtlHours, quorum, remindAfterHours } = settings;
  const missing = [
    ...(approvalChannelId ? [] : ['APPROVAL_CHANNEL_ID']),
    ...(approvers.users.length + approvers.userGroups.length > 0 ? [] : ['DELETION_APPROVERS']),
  ];
  if (!approvalChannelId || missing.length > 0) return { ok: false, missing };
  return { ok: true, settings: { approvalChannelId, approvers, requestTtlHours, quorum, remindAfterHours } };
}

/**
 * Who sets up what a workspace misses: the operator (SETTINGS_SOURCE=env), the operator or a settings admin,
 * or, in distribution mode, where a customer never sees the operator's environment, a settings admin.
 */
export type SetUpBy = 'operator' | 'operator or admin' | 'admin';

/** Who can set up what is missing, in words for the person asking. */
export function whoSetsUp(missing: readonly string[], by: SetUpBy): string {
  if (by === 'admin')
    return "a settings admin of this workspace (its admins and owners, or whom they named) must choose the approval channel and the approvers in Settings on the app's Home";
  return `the app's operator must set ${missing.join(' and ')}${by === 'operator or admin' ? ", or a settings admin choose them in Settings on the app's Home" : ''}`;
}

export function notConfiguredText(missing: readonly string[], by: SetUpBy): string {
  return `:no_entry: Customer deletion is not set up in this workspace: ${whoSetsUp(missing, by)} (the channel where requests wait for approval, and who may approve). Nothing was recorded.`;
}
