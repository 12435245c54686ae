import type { App } from '@slack/bolt';
import type { AppDeps } from '../app.js';
import type { CommandRegistry } from '../commands/command-registry.js';
import { guardAction, guardView } from '../slack-ui/guard-listener.js';
import { openModal } from '../slack-ui/open-modal.js';
import { Approvers } from './approvers.js';
import { handleCancelButton, handleDecisionButton, handleRetryButton } from './decision-buttons.js';
import { handleApproveSubmission, handleRejectSubmission } from './decision-submissions.js';
import { APPROVE_FORM_CALLBACK, REJECT_FORM_CALLBACK } from './decision-views.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import type { DeletionContext } from './deletion-context.js';
import { DELETION_ACTIONS } from './deletion-messages.js';
import { ADD_IDS_BOX_ACTION, DELETION_FORM_CALLBACK, boxesOf, deletionRequestView } from './deletion-request-form.js';
import { handleDeletionRequestSubmission } from './deletion-request-submission.js';
import { deletionSettings, notConfiguredText } from './deletion-settings.js';
import { deletionSubcommand } from './deletion-subcommand.js';

/** The global shortcut declared in manifest.yml. */
export const REQUEST_DELETION_SHORTCUT = 'request_customer_deletion';

/** Customer deletion with a second person's approval; returns what the sweeper needs. */
export function registerCustomers(app: App, commands: CommandRegistry, deps: AppDeps): DeletionContext {
  const configured = deletionSettings(deps.config);
  const ctx: DeletionContext = {
    store: deps.store,
    mintApi: deps.mintApi,
    logger: deps.logger.child({ capability: 'customer-deletion' }),
    client: app.client,
    settings: configured.ok ? configured.settings : undefined,
    missingSettings: configured.ok ? [] : configured.missing,
    approvers: new Approvers(deps.config.deletion.approvers, app.client, deps.logger),
  };

  commands.register(deletionSubcommand(ctx));
  app.shortcut(REQUEST_DELETION_SHORTCUT, async ({ ack, shortcut, client }) => {
    await ack();
    const view = ctx.settings ? deletionRequestView() : noticeModal('Request deletion', notConfiguredText(ctx.missingSettings));
    await openModal(client, shortcut.trigger_id, view, { logger: ctx.logger });
  });
  app.action(ADD_IDS_BOX_ACTION, async ({ ack, body, client }) => {
    await ack();
    const view = (body as { view?: { id: string; hash: string; private_metadata?: string } }).view;
    if (!view) return;
    // Same block ids as before: Slack keeps what was typed in the existing boxes.
    await client.views
      .update({ view_id: view.id, hash: view.hash, view: deletionRequestView({ boxes: boxesOf(view.private_metadata) + 1 }) })
      .catch((error: unknown) => ctx.logger.info({ err: error }, 'could not add a box (the view changed meanwhile)'));
  });
  // Every handler below reads or writes the database: if it is away, the user is told, never left waiting.
  const { logger } = ctx;
  app.view(DELETION_FORM_CALLBACK, guardView(logger, 'Request deletion', handleDeletionRequestSubmission(ctx)));
  app.action(DELETION_ACTIONS.approve, guardAction(logger, handleDecisionButton(ctx, 'approve')));
  app.action(DELETION_ACTIONS.reject, guardAction(logger, handleDecisionButton(ctx, 'reject')));
  app.action(DELETION_ACTIONS.retry, guardAction(logger, handleRetryButton(ctx)));
  app.action(DELETION_ACTIONS.cancel, guardAction(logger, handleCancelButton(ctx)));
  app.view(APPROVE_FORM_CALLBACK, guardView(logger, 'Approve deletion', handleApproveSubmission(ctx)));
  app.view(REJECT_FORM_CALLBACK, guardView(logger, 'Reject deletion', handleRejectSubmission(ctx)));
  return ctx;
}
