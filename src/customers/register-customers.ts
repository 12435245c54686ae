import type { WebClient } from '@slack/web-api';
import type { FeatureDeps } from '../app.js';
import type { CommandRegistry } from '../commands/command-registry.js';
import { guardAction, guardView } from '../slack-ui/guard-listener.js';
import { openForm } from '../slack-ui/open-modal.js';
import type { Routes } from '../slack-ui/routes.js';
import type { Approvers } from './approvers.js';
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
export function registerCustomers(routes: Routes, commands: CommandRegistry, deps: FeatureDeps, client: WebClient, approvers: Approvers): DeletionContext {
  const configured = deletionSettings(deps.config);
  const ctx: DeletionContext = {
    store: deps.store,
    mintApi: deps.mintApi,
    logger: deps.logger.child({ capability: 'customer-deletion' }),
    client,
    settings: configured.ok ? configured.settings : undefined,
    missingSettings: configured.ok ? [] : configured.missing,
    approvers,
    home: deps.home,
  };

  commands.register(deletionSubcommand(ctx));
  routes.shortcut(
    REQUEST_DELETION_SHORTCUT,
    openForm(() => (ctx.settings ? deletionRequestView() : noticeModal('Request deletion', notConfiguredText(ctx.missingSettings))), ctx.logger),
  );
  routes.action(ADD_IDS_BOX_ACTION, async ({ ack, body }: { ack: () => Promise<void>; body: { view?: { id: string; hash: string; private_metadata?: string } } }) => {
    await ack();
    const view = body.view;
    if (!view) return;
    // Same block ids as before: Slack keeps what was typed in the existing boxes.
    await ctx.client.views
      .update({ view_id: view.id, hash: view.hash, view: deletionRequestView({ boxes: boxesOf(view.private_metadata) + 1 }) })
      .catch((error: unknown) => ctx.logger.info({ err: error }, 'could not add a box (the view changed meanwhile)'));
  });
  // Every handler below reads or writes the database: if it is away, the user is told, never left waiting.
  const { logger } = ctx;
  routes
    .view(DELETION_FORM_CALLBACK, guardView(logger, 'Request deletion', handleDeletionRequestSubmission(ctx)))
    .action(DELETION_ACTIONS.approve, guardAction(logger, handleDecisionButton(ctx, 'approve')))
    .action(DELETION_ACTIONS.reject, guardAction(logger, handleDecisionButton(ctx, 'reject')))
    .action(DELETION_ACTIONS.retry, guardAction(logger, handleRetryButton(ctx)))
    .action(DELETION_ACTIONS.cancel, guardAction(logger, handleCancelButton(ctx)))
    .view(APPROVE_FORM_CALLBACK, guardView(logger, 'Approve deletion', handleApproveSubmission(ctx)))
    .view(REJECT_FORM_CALLBACK, guardView(logger, 'Reject deletion', handleRejectSubmission(ctx)));
  return ctx;
}
