import type { App, BlockAction, ButtonAction, GlobalShortcut, ViewSubmitAction } from '@slack/bolt';
import { Slots } from '../admission/slots.js';
import type { CapabilityDeps } from '../deps.js';
import { patientSlackClient } from '../slack-api/patient-client.js';
import { guardAction, guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import { handleControl, handleErrorsFile, handleResendResults } from './bulk-buttons.js';
import type { BulkContext } from './bulk-context.js';
import { BULK_FORM_CALLBACK, bulkFormView } from './bulk-form.js';
import { handleStart } from './bulk-start.js';
import { bulkSubcommand } from './bulk-subcommand.js';
import { handleBulkFormSubmission } from './bulk-submission.js';
import { BULK_ACTIONS, BULK_PREVIEW_CALLBACK } from './bulk-views.js';
import { BulkWorker } from './bulk-worker.js';
import { BULK_HOME_ACTION, bulkHomeEntry } from './home-entry.js';
import { startProgressTicker } from './progress.js';
import { maxBulkConcurrency } from '../workspace-settings/settings-model.js';

/** The global shortcut declared in manifest.yml. */
export const BULK_SHORTCUT = 'bulk_create';

type Button = BlockAction<ButtonAction>;

/**
 * Bulk jobs: `/mintlink bulk`, the "Bulk create" shortcut and Home button, the form and its preview, Start,
 * Pause/Resume/Cancel, the worker that sends the rows, the progress messages and the results file.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const logger = deps.logger.child({ capability: 'bulk' });
  const ctx: BulkContext = {
    store: deps.store,
    mintApi: deps.mintApi,
    logger,
    client: app.client,
    patientClient: patientSlackClient(deps, logger),
    approvers: deps.approvers,
    home: deps.home,
    work: deps.work,
    readiness: deps.readiness,
    botToken: deps.config.slack.botToken,
    slackApiUrl: deps.config.slack.apiUrl,
    get concurrency() {
      return deps.settings.current().values.bulkConcurrency;
    },
    maxConcurrency: maxBulkConcurrency(deps.config),
    checkSlots: new Slots(deps.config.bulk.checkSlots),
    scrub: deps.scrub,
    mintTimeoutMs: deps.config.mint.timeoutMs,
  };
  const worker = new BulkWorker(ctx);
  const nudge = () => worker.nudge();
  const openBulkForm = openForm(() => bulkFormView(), logger);

  deps.commands.register(bulkSubcommand);
  deps.home.add(bulkHomeEntry(ctx));
  deps.background.add(() => worker.start());
  deps.background.add(() => startProgressTicker(ctx));

  app.shortcut<GlobalShortcut>(BULK_SHORTCUT, openBulkForm);
  app.action<Button>(BULK_HOME_ACTION, openBulkForm);
  // Every handler below reads or writes the database: if it is away, the user is told, never left waiting.
  app.view<ViewSubmitAction>(BULK_FORM_CALLBACK, guardView(logger, 'Bulk create', handleBulkFormSubmission(ctx)));
  app.view<ViewSubmitAction>(BULK_PREVIEW_CALLBACK, guardView(logger, 'Bulk create', handleStart(ctx, nudge)));
  app.action<Button>(BULK_ACTIONS.pause, guardAction(logger, handleControl(ctx, 'pause', nudge)));
  app.action<Button>(BULK_ACTIONS.resume, guardAction(logger, handleControl(ctx, 'resume', nudge)));
  app.action<Button>(BULK_ACTIONS.cancel, guardAction(logger, handleControl(ctx, 'cancel', nudge)));
  app.action<Button>(BULK_ACTIONS.errorsFile, guardAction(logger, handleErrorsFile(ctx)));
  app.action<Button>(BULK_ACTIONS.resendResults, guardAction(logger, handleResendResults(ctx)));
}
