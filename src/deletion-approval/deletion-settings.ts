import type { DeletionApprovers, DeletionQuorum } from '../config/config.js';
import type { WorkspaceSettings } from '../workspace-settings/settings-model.js';

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

/** Who can set up what is missing: the operator, and (unless SETTINGS_SOURCE=env) a settings admin. */
export function whoSetsUp(missing: readonly string[], inSlack: boolean): string {
  return `the app's operator must set ${missing.join(' and ')}${inSlack ? ", or a settings admin choose them in Settings on the app's Home" : ''}`;
}

export function notConfiguredText(missing: readonly string[], inSlack = false): string {
  return `:no_entry: Customer deletion is not set up in this workspace: ${whoSetsUp(missing, inSlack)} (the channel where requests wait for approval, and who may approve). Nothing was recorded.`;
}
