import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { listen } from '../request-pipeline/listen.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import { openForm, openModal } from '../slack-ui/open-modal.js';
import { handleCancelButton, handleDecisionButton, handleRetryButton } from './decision-buttons.js';
import { decisionMetadataKey } from './decision-metadata.js';
import { handleApproveSubmission, handleRejectSubmission } from './decision-submissions.js';
import { APPROVE_FORM_CALLBACK, REJECT_FORM_CALLBACK } from './decision-views.js';
import type { DeletionContext } from './deletion-context.js';
import { DELETION_ACTIONS } from './deletion-messages.js';
import {
  ADD_IDS_BOX_ACTION,
  DELETION_FORM_CALLBACK,
  boxesOf,
  deletionRequestView,
  signedSourceOf,
} from './deletion-request-form.js';
import { REQUEST_DELETION_STEP, requestDeletionStep } from './deletion-step.js';
import { startStepCompleter } from './step-completion.js';
import { REQUEST_DELETION_MESSAGE_SHORTCUT, openFormFromMessage } from './message-shortcut.js';
import { tokenSealingKey } from '../workflow-steps/sealed-token.js';
import { handleDeletionRequestSubmission } from './deletion-request-submission.js';
import { deletionSettings, notConfiguredText } from './deletion-settings.js';
import { deletionSubcommand } from './deletion-subcommand.js';
import { startDeletionSweeper, sweeperTiming } from './deletion-sweeper.js';
import { reminderWork } from './reminders.js';
import { DELETION_HOME_ACTIONS, allApprovalsView, deletionHomeEntry, ownRequestsView } from './home-entry.js';

/** The global shortcut declared in manifest.yml. */
export const REQUEST_DELETION_SHORTCUT = 'request_customer_deletion';

/**
 * Customer deletion with a second person's approval: `/mintlink delete`, the global shortcut, the message
 * shortcut (IDs from a message), the workflow step, the request form, the approval message's buttons and
 * modals, the requester's Cancel, its Home entry and the sweeper.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  const configured = () => deletionSettings(deps.settings.current().values);
  const logger = deps.logger.child({ capability: 'deletion-approval' });
  const ctx: DeletionContext = {
    store: deps.store,
    mintApi: deps.mintApi,
    logger,
    client: app.client,
    patientClient: deps.patientClient,
    get settings() {
      const now = configured();
      return now.ok ? now.settings : undefined;
    },
    get missingSettings() {
      const now = configured();
      return now.ok ? [] : now.missing;
    },
    settingsInSlack: !deps.settings.envOnly,
    approvers: deps.approvers,
    home: deps.home,
    decisionKey: decisionMetadataKey(deps.config.slack.keySource),
    stepTokenKey: tokenSealingKey(deps.config.slack.keySource),
  };
  const requestForm = () =>
    ctx.settings
      ? deletionRequestView()
      : noticeModal('Request deletion', notConfiguredText(ctx.missingSettings, ctx.settingsInSlack));

  deps.commands.register(deletionSubcommand(ctx));
  deps.home.add(deletionHomeEntry(ctx));
  const timing = sweeperTiming(deps.config.mint.timeoutMs);
  deps.background.add(() => startDeletionSweeper(ctx, timing));
  deps.background.add(() => startStepCompleter(ctx, timing.intervalMs));
  deps.background.add(reminderWork(ctx, deps));

  on.shortcut(REQUEST_DELETION_SHORTCUT, openForm(requestForm));
  on.messageShortcut(REQUEST_DELETION_MESSAGE_SHORTCUT, openFormFromMessage(ctx));
  on.step(REQUEST_DELETION_STEP, 'the deletion request', requestDeletionStep(ctx));
  on.button(DELETION_HOME_ACTIONS.requestDeletion, openForm(requestForm));
  on.button(ADD_IDS_BOX_ACTION, async ({ body }) => {
    const view = body.view;
    if (!view) return;
    // Same block ids as before: Slack keeps what was typed in the existing boxes.
    await app.client.views
      .update({
        view_id: view.id,
        hash: view.hash,
        view: deletionRequestView({ boxes: boxesOf(view.private_metadata) + 1, ...keptSource(view.private_metadata) }),
      })
      .catch((error: unknown) => logger.info({ err: error }, 'could not add a box (the view changed meanwhile)'));
  });

  on.form(DELETION_FORM_CALLBACK, 'Request deletion', handleDeletionRequestSubmission(ctx));
  on.button(DELETION_ACTIONS.approve, handleDecisionButton(ctx, 'approve'));
  on.button(DELETION_ACTIONS.reject, handleDecisionButton(ctx, 'reject'));
  // The same click delivered twice must not send the deletion twice (after a failure both would win).
  on.button(DELETION_ACTIONS.retry, handleRetryButton(ctx), { once: true });
  on.button(DELETION_ACTIONS.cancel, handleCancelButton(ctx));
  on.form(APPROVE_FORM_CALLBACK, 'Approve deletion', handleApproveSubmission(ctx));
  on.form(REJECT_FORM_CALLBACK, 'Reject deletion', handleRejectSubmission(ctx));

  // Home's "See all": the list is read, then shown (the trigger allows 3 s; reads take milliseconds).
  for (const [actionId, view] of [
    [DELETION_HOME_ACTIONS.allApprovals, allApprovalsView],
    [DELETION_HOME_ACTIONS.allOwnRequests, ownRequestsView],
  ] as const) {
    on.button(actionId, async ({ body, client }) => openModal(client, body.trigger_id, await view(ctx, body.user.id)));
  }
}

/** The message a form was opened from, carried over when the form is rebuilt. */
function keptSource(privateMetadata: string | undefined): { source?: string } {
  const source = signedSourceOf(privateMetadata);
  return source ? { source } : {};
}
