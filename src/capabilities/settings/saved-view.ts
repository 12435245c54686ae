import type { ModalView } from '@slack/types';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { SETTING_DESCRIPTIONS } from '../../tenancy/workspaces/settings-model.js';
import { capitalize } from './settings-form.js';
import type { SettingChange } from './save-settings.js';

/** The modal after a save: what changed, and where the announcement could not be posted, if anywhere. */
export function savedView(
  saved: { changes: readonly SettingChange[] },
  failed: ReadonlyArray<{ channel: string; error: string }>,
): ModalView {
  const lines = saved.changes.map(
    (c) => `• ${capitalize(SETTING_DESCRIPTIONS[c.name].title)}: ${c.from.slack} → ${c.to.slack}`,
  );
  const warnings = failed.map(
    (f) =>
      `:warning: The change could not be announced in <#${f.channel}> (${f.error}); it is saved and in force all the same.`,
  );
  return noticeModal(
    'Mintlink settings',
    [
      ':white_check_mark: *Saved.* In force now on every instance of the app, and recorded in the audit log.',
      ...lines,
      'Deletion requests already waiting keep the quorum, approvers and expiry they were opened with.',
      ...warnings,
    ].join('\n'),
  );
}
