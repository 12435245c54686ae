import type { App, BlockAction, ButtonAction, GlobalShortcut, MessageShortcut, ViewSubmitAction } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { patientSlackClient } from '../slack-api/patient-client.js';
import { guardAction, guardView } from '../slack-ui/guard-listener.js';
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
import { requestOf } from '../observability/request-context.js';

/** The global shortcut declared in manifest.yml. */
export const REQUEST_DELETION_SHORTCUT = 'request_customer_deletion';

type Button = BlockAction<ButtonAction>;

/**
 * Customer deletion with a second person's approval: `/mintlink delete`, the global shortcut, the message
 * shortcut (IDs from a message), the workflow step, the request form, the approval message's buttons and
 * modals, the requester's Cancel, its Home entry and the sweeper.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const configured = () => deletionSettings(deps.settings.current().values);
  const logger = deps.logger.child({ capability: 'deletion-approval' });
  const ctx: DeletionContext = {
    store: deps.store,
    mintApi: deps.mintApi,
    logger,
    client: app.client,
    patientClient: patientSlackClient(deps, logger),
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
    decisionKey: decisionMetadataKey(deps.config.slack.botToken),
    stepTokenKey: tokenSealingKey(deps.config.slack.botToken),
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

  app.shortcut<GlobalShortcut>(REQUEST_DELETION_SHORTCUT, openForm(requestForm, logger));
  app.shortcut<MessageShortcut>(REQUEST_DELETION_MESSAGE_SHORTCUT, openFormFromMessage(ctx));
  app.function(REQUEST_DELETION_STEP, requestDeletionStep(ctx));
  app.action<Button>(DELETION_HOME_ACTIONS.requestDeletion, openForm(requestForm, logger));
  app.action<Button>(ADD_IDS_BOX_ACTION, async ({ ack, body }) => {
    await ack();
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

  // Every handler below reads or writes the database: if it is away, the user is told, never left waiting.
  app.view<ViewSubmitAction>(
    DELETION_FORM_CALLBACK,
    guardView(logger, 'Request deletion', handleDeletionRequestSubmission(ctx)),
  );
  app.action<Button>(DELETION_ACTIONS.approve, guardAction(logger, handleDecisionButton(ctx, 'approve')));
  app.action<Button>(DELETION_ACTIONS.reject, guardAction(logger, handleDecisionButton(ctx, 'reject')));
  app.action<Button>(DELETION_ACTIONS.retry, guardAction(logger, handleRetryButton(ctx)));
  app.action<Button>(DELETION_ACTIONS.cancel, guardAction(logger, handleCancelButton(ctx)));
  app.view<ViewSubmitAction>(
    APPROVE_FORM_CALLBACK,
    guardView(logger, 'Approve deletion', handleApproveSubmission(ctx)),
  );
  app.view<ViewSubmitAction>(REJECT_FORM_CALLBACK, guardView(logger, 'Reject deletion', handleRejectSubmission(ctx)));

  // Home's "See all": the list is read, then shown (the trigger allows 3 s; reads take milliseconds).
  for (const [actionId, view] of [
    [DELETION_HOME_ACTIONS.allApprovals, allApprovalsView],
    [DELETION_HOME_ACTIONS.allOwnRequests, ownRequestsView],
  ] as const) {
    app.action<Button>(
      actionId,
      guardAction(logger, async ({ ack, body, client, context }) => {
        await ack();
        await openModal(client, body.trigger_id, await view(ctx, body.user.id), {
          logger,
          request: requestOf(context),
        });
      }),
    );
  }
}

/** The message a form was opened from, carried over when the form is rebuilt. */
function keptSource(privateMetadata: string | undefined): { source?: string } {
  const source = signedSourceOf(privateMetadata);
  return source ? { source } : {};
}
