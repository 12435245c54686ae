import type { App } from '@slack/bolt';
import { AUDIT_EXPORT } from './actions.js';
import { bulkhead } from 'cockatiel';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { AuditViewers } from './audit-viewers.js';
import { auditViewersOf } from '../../tenancy/workspaces/settings-model.js';
import { handleExportSubmission } from './export-submission.js';
import { auditHomeEntry } from './home-entry.js';
import { openExportForm } from './open-export-form.js';
import { exportSubcommand } from './export-subcommand.js';
import { retentionJob } from './retention.js';
import type { ExportContext } from './run-export.js';

/** Exports one process writes at once; the others wait their turn (each holds a page of the log and an upload). */
const EXPORTS_AT_ONCE = 2;

/**
 * The audit log outside the database: `/mintlink audit`, the Home button and its form (viewers only), the
 * CSV export to the asker's DM, and the retention that prunes old entries (AUDIT_RETENTION_DAYS).
 */
export function register(app: App, deps: CapabilityDeps): void {
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
  deps.commands.register(exportSubcommand(ctx, viewers));
  deps.home.add(auditHomeEntry(viewers, deps.config));
  deps.background.schedule(
    retentionJob({ store: deps.store, logger, work: deps.work }, deps.config.audit.retentionDays),
  );

  listen(app, deps).declared(AUDIT_EXPORT, {
    buttons: { exportFromHome: openExportForm(viewers) },
    forms: { export: handleExportSubmission(ctx, viewers) },
  });
}
