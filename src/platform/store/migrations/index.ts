import type { Migration, MigrationProvider } from 'kysely';
import * as auditLog from './001-audit-log.js';
import * as deletionRequests from './002-deletion-requests.js';
import * as homeTabs from './003-home-tabs.js';
import * as onceKeys from './004-once-keys.js';
import * as workflowSteps from './005-workflow-steps.js';
import * as bulkJobs from './006-bulk-jobs.js';
import * as deletionApprovals from './007-deletion-approvals.js';
import * as auditLogAtId from './008-audit-log-at-id.js';
import * as bulkDrafts from './009-bulk-drafts.js';
import * as workspaceSettings from './010-workspace-settings.js';
import * as installations from './011-installations.js';
import * as workspaces from './012-workspaces.js';
import * as homeTabsByWorkspace from './013-home-tabs-by-workspace.js';
import * as settledDeletionAsks from './014-settled-deletion-asks.js';
import * as bulkRetries from './015-bulk-retries.js';
import * as mintCallOutcomes from './016-mint-call-outcomes.js';
import * as deletionNotFound from './017-deletion-not-found.js';
import * as tokenRenewalLease from './018-token-renewal-lease.js';
import * as orgWorkspaceTimes from './019-org-workspace-times.js';
import * as history from './020-history.js';
import * as historyAudience from './021-history-audience.js';

/** Migrations in order; names are permanent once released. */
const migrations: Record<string, Migration> = {
  '001-audit-log': auditLog,
  '002-deletion-requests': deletionRequests,
  '003-home-tabs': homeTabs,
  '004-once-keys': onceKeys,
  '005-workflow-steps': workflowSteps,
  '006-bulk-jobs': bulkJobs,
  '007-deletion-approvals': deletionApprovals,
  '008-audit-log-at-id': auditLogAtId,
  '009-bulk-drafts': bulkDrafts,
  '010-workspace-settings': workspaceSettings,
  '011-installations': installations,
  '012-workspaces': workspaces,
  '013-home-tabs-by-workspace': homeTabsByWorkspace,
  '014-settled-deletion-asks': settledDeletionAsks,
  '015-bulk-retries': bulkRetries,
  '016-mint-call-outcomes': mintCallOutcomes,
  '017-deletion-not-found': deletionNotFound,
  '018-token-renewal-lease': tokenRenewalLease,
  '019-org-workspace-times': orgWorkspaceTimes,
  '020-history': history,
  '021-history-audience': historyAudience,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
