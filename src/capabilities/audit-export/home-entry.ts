import type { HomeEntry } from '../../deps.js';
import type { Config } from '../../platform/ops/config/config.js';
import { AUDIT_EXPORT } from './actions.js';
import type { AuditViewers } from './audit-viewers.js';

/** The Export button in Home's row of flows (viewers only), and the audit log's line in the status footer. */
export function auditHomeEntry(viewers: AuditViewers, config: Config): HomeEntry {
  const notSetUp = config.distribution ? 'not set up (Settings)' : 'not set up (AUDIT_VIEWERS)';
  const { retentionDays } = config.audit;
  return {
    order: 40,
    flow: {
      ...AUDIT_EXPORT.buttons.exportFromHome,
      // Only viewers may export: for anyone else the button would only open a refusal.
      shownTo: (userId, team) => viewers.mayBeViewer(userId, team),
    },
    status: (team) =>
      `Audit log: ${retentionDays ? `entries kept ${retentionDays} days` : 'kept without limit'}; export: ${viewers.configured(team) ? viewers.mentions(team) : notSetUp}`,
  };
}
