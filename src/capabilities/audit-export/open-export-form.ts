import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import type { ButtonRequest, Ended } from '../../platform/slack/pipeline/listen.js';
import type { AuditViewers } from './audit-viewers.js';
import { exportFormView } from './export-form.js';

/**
 * The Home button: the form for viewers, a notice saying why for everyone else (the trigger allows 3 s; the
 * check waits for Slack at most 1.5 s).
 */
export function openExportForm(viewers: AuditViewers) {
  return async ({ body, client, teamId: team }: ButtonRequest): Promise<Ended> => {
    const check = await viewers.check(body.user.id, team);
    const view = check.viewer ? exportFormView() : noticeModal('Export audit log', viewers.refusal(check, team));
    await openModal(client, body.trigger_id, view);
    return check.viewer ? undefined : 'refused';
  };
}
