import type { App } from '@slack/bolt';
import { BULK } from './actions.js';
import { bulkhead } from 'cockatiel';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { openForm } from '../../platform/blocks/open-modal.js';
import { handleControl, handleErrorsFile, handleResendResults } from './bulk-buttons.js';
import type { BulkContext } from './bulk-context.js';
import { bulkFormView } from './bulk-form.js';
import { handleRetry } from './bulk-retry.js';
import { handleSampleCsv } from './sample-csv.js';
import { handleStart } from './bulk-start.js';
import { bulkSubcommand } from './bulk-subcommand.js';
import { handleBulkFormSubmission } from './bulk-submission.js';
import { BulkWorker } from './bulk-worker.js';
import { bulkHomeEntry } from './home-entry.js';
import { progressTickerJob } from './progress.js';
import { maxBulkConcurrency } from '../../tenancy/workspaces/settings-model.js';
import { GoneWorkspaces } from './gone-workspaces.js';
import { OPERATOR_FIXES_CREDENTIALS, WORKSPACE_FIXES_CREDENTIALS } from './row-disposition.js';
import { stopWorkspaceJobs } from './stop-workspace.js';

/**
 * Bulk jobs: `/mintlink bulk`, the "Bulk create" shortcut and Home button, the form and its preview, Start,
 * Pause/Resume/Cancel, the worker that sends the rows, the progress messages and the results file; each
 * workspace's jobs apart from the others', and stopped when the workspace removes the app.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const logger = deps.logger.child({ capability: 'bulk' });
  const ctx: BulkContext = {
    store: deps.store,
    logger,
    workspaces: deps.workspaces,
    mintAccounts: deps.mintAccounts,
    approvers: deps.approvers,
    home: deps.home,
    work: deps.work,
    readiness: deps.readiness,
    botToken: deps.config.slack.botToken,
    slackApiUrl: deps.config.slack.apiUrl,
    downloadDeadlineMs: deps.slackCalls.downloadDeadlineMs,
    concurrencyIn: (teamId) => deps.settings.current(teamId).values.bulkConcurrency,
    maxConcurrency: maxBulkConcurrency(deps.config),
    checkSlots: bulkhead(deps.config.bulk.checkSlots),
    scrub: deps.scrub,
    mintTimeoutMs: deps.config.mint.timeoutMs,
    credentialsFix: deps.workspaces.distributed ? WORKSPACE_FIXES_CREDENTIALS : OPERATOR_FIXES_CREDENTIALS,
    gone: new GoneWorkspaces(logger),
    pace: deps.config.bulk.pace,
  };
  if (deps.config.bulk.testPaceMs !== undefined)
    logger.warn(
      { testBulkPaceMs: deps.config.bulk.testPaceMs },
      'TEST_BULK_PACE_MS is set: bulk jobs update their progress more often than the app does (tests only)',
    );
  const worker = new BulkWorker(ctx);
  const openBulkForm = openForm(() => bulkFormView());

  deps.commands.register(bulkSubcommand);
  deps.home.add(bulkHomeEntry(ctx));
  // A job started, resumed or cancelled on any replica wakes every replica's worker; none polls meanwhile.
  deps.store.changes.on('bulk-job', () => worker.wake());
  deps.store.changes.onCatchUp(() => worker.lookForWork());
  deps.background.add(() => worker.start());
  deps.background.schedule(worker.safetyLookJob());
  deps.background.schedule(worker.draftsPruneJob());
  deps.background.schedule(progressTickerJob(ctx, () => worker.wakes));
  deps.workspaces.onUninstall((teamId) => stopWorkspaceJobs(ctx, teamId));

  listen(app, deps).declared(BULK, {
    shortcuts: { create: openBulkForm },
    buttons: {
      createFromHome: openBulkForm,
      sampleCsv: handleSampleCsv(ctx),
      pause: handleControl(ctx, 'pause'),
      resume: handleControl(ctx, 'resume'),
      cancel: handleControl(ctx, 'cancel'),
      errorsFile: handleErrorsFile(ctx),
      resendResults: handleResendResults(ctx),
      retry: handleRetry(ctx),
    },
    forms: { check: handleBulkFormSubmission(ctx), start: handleStart(ctx) },
  });
}
