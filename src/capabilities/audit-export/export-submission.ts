import { noticeModal } from '../../platform/blocks/notice-modal.js';
import type { FormRequest } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import type { AuditViewers } from './audit-viewers.js';
import { readExportForm } from './export-form.js';
import { describeRequest } from './export-request.js';
import { type ExportContext, runExport } from './run-export.js';

/** The export form's submission: checked, the asker a viewer still, then the CSV written to their DM. */
export function handleExportSubmission(ctx: ExportContext, viewers: AuditViewers) {
  return async ({ ack, body, view, teamId: team }: FormRequest): Promise<void> => {
    const form = readExportForm(view.state.values);
    if (!form.ok) return ack({ response_action: 'errors', errors: form.errors });
    // Asked afresh: someone removed from the viewers since the form opened cannot export.
    const check = await viewers.check(body.user.id, team);
    if (!check.viewer) throw refused(viewers.refusal(check, team));
    await ack({
      response_action: 'update',
      view: noticeModal(
        'Export audit log',
        `:hourglass_flowing_sand: Exporting the audit log (${describeRequest(form.request)}). The CSV file will arrive in your direct messages with the app; you can close this.`,
      ),
    });
    await runExport(ctx, { userId: body.user.id, teamId: team }, form.request);
  };
}
