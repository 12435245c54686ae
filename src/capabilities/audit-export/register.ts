import type { App } from '@slack/bolt';
import { AUDIT_EXPORT } from './actions.js';
import { bulkhead } from 'cockatiel';
import type { CapabilityDeps } from '../../deps.js';
import { type ButtonRequest, type FormRequest, listen } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import { AuditViewers } from './audit-viewers.js';
import { auditViewersOf } from '../../tenancy/workspaces/settings-model.js';
import { exportFormView, readExportForm } from './export-form.js';
import { describeRequest } from './export-request.js';
import { exportSubcommand } from './export-subcommand.js';
import { retentionJob } from './retention.js';
import { type ExportContext, runExport } from './run-export.js';

/** Exports one process writes at once; the others wait their turn (each holds a page of the log and an upload). */
const EXPORTS_AT_ONCE = 2;

/**
 * The audit log outside the database: `/mintlink audit`, the Home button and its form (viewers only), the
 * CSV export to the asker's DM, and the retention that prunes old entries (AUDIT_RETENTION_DAYS).
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  const logger = deps.logger.child({ capability: 'audit-export' });
  const slack = (teamId: string) => deps.workspaces.slack(teamId);
  const ctx: ExportContext = {
    store: deps.store,
    slack,
    logger,
    slots: bulkhead(EXPORTS_AT_ONCE, Infinity),
    home: deps.home,
  };
  const viewers = new AuditViewers(
    (team) => auditViewersOf(deps.settings.current(team).values),
    deps.approvers,
    deps.config.distribution !== undefined,
  );
  const notSetUp = deps.config.distribution ? 'not set up (Settings)' : 'not set up (AUDIT_VIEWERS)';
  const { retentionDays } = deps.config.audit;

  deps.commands.register(exportSubcommand(ctx, viewers));
  deps.home.add({
    order: 40,
    flow: {
      ...AUDIT_EXPORT.buttons.exportFromHome,
      // Only viewers may export: for anyone else the button would only open a refusal.
      shownTo: (userId, team) => viewers.mayBeViewer(userId, team),
    },
    status: (team) =>
      `Audit log: ${retentionDays ? `entries kept ${retentionDays} days` : 'kept without limit'}; export: ${viewers.configured(team) ? viewers.mentions(team) : notSetUp}`,
  });
  deps.background.schedule(retentionJob({ store: deps.store, logger, work: deps.work }, retentionDays));

  // The Home button: the form for viewers, a notice saying why for everyone else (the trigger allows 3 s;
  // the check waits for Slack at most 1.5 s).
  const openExportForm = async ({ body, client, teamId: team }: ButtonRequest) => {
    const check = await viewers.check(body.user.id, team);
    const view = check.viewer ? exportFormView() : noticeModal('Export audit log', viewers.refusal(check, team));
    await openModal(client, body.trigger_id, view);
    return check.viewer ? undefined : 'refused';
  };

  const exportAuditLog = async ({ ack, body, view, teamId: team }: FormRequest) => {
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

  on.declared(AUDIT_EXPORT, { buttons: { exportFromHome: openExportForm }, forms: { export: exportAuditLog } });
}
