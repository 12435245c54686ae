import type { Config, DeletionApprovers, DeletionQuorum } from '../config/config.js';

export const MAX_REASON_LENGTH = 1000;

export interface DeletionSettings {
  approvalChannelId: string;
  approvers: DeletionApprovers;
  requestTtlHours: number;
  quorum: DeletionQuorum;
  remindAfterHours: number;
}

/** The settings, or what is missing: deletion needs an approval channel and at least one approver. */
export function deletionSettings(
  config: Config,
): { ok: true; settings: DeletionSettings } | { ok: false; missing: string[] } {
  const { approvalChannelId, approvers, requestTtlHours, quorum, remindAfterHours } = config.deletion;
  const missing = [
    ...(approvalChannelId ? [] : ['APPROVAL_CHANNEL_ID']),
    ...(approvers.users.length + approvers.userGroups.length > 0 ? [] : ['DELETION_APPROVERS']),
  ];
  if (!approvalChannelId || missing.length > 0) return { ok: false, missing };
  return { ok: true, settings: { approvalChannelId, approvers, requestTtlHours, quorum, remindAfterHours } };
}

export function notConfiguredText(missing: readonly string[]): string {
  return `:no_entry: Customer deletion is not set up in this workspace: the app's operator must set ${missing.join(' and ')} (the channel where requests wait for approval, and who may approve). Nothing was recorded.`;
}
