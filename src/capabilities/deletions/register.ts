import type { WebClient } from '@slack/web-api';
import { DELETIONS } from './actions.js';
import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { type ButtonRequest, listen } from '../../platform/slack/pipeline/listen.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import { handleCancelButton, handleDecisionButton, handleRetryButton, offeredDecision } from './decision-buttons.js';
import { handleApproveSubmission, handleRejectSubmission } from './decision-modal.js';
import { deletionContext, notConfiguredText, workspaceOf } from './deletion-context.js';
import { boxesOf, deletionRequestView, signedSourceOf } from './deletion-request-form.js';
import { requestDeletionStep } from './deletion-step.js';
import { stepCompleterJob } from './step-completion.js';
import { openFormFromMessage } from './message-shortcut.js';
import { handleDeletionRequestSubmission } from './deletion-request-submission.js';
import { cancelWorkspaceDeletions } from './workspace-removed.js';
import { deletionSubcommand } from './deletion-subcommand.js';
import { deletionSweeperJob, sweeperTiming } from './deletion-sweeper.js';
import { reminderJob } from './reminders.js';
import { allApprovalsView, deletionHomeEntry, ownRequestsView } from './home-entry.js';

/**
 * Customer deletion with a second person's approval: `/mintlink delete`, the global shortcut, the message
 * shortcut (IDs from a message), the workflow step, the request form, the approval message's buttons and
 * modals, the requester's Cancel, its Home entry, the sweeper, reminders and step completion, and what
 * happens when a workspace removes the app. Everything works within one workspace at a time: its requests,
 * settings, approvers, token and Mint account.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const ctx = deletionContext(deps);
  /** The request form, in the workspace asked from (or why it cannot be asked there). */
  const openRequestForm = async ({ body, client, teamId }: FormOpener): Promise<void> => {
    const configured = ctx.settingsIn(workspaceOf(ctx, teamId));
    const view = configured.ok
      ? deletionRequestView({ quorum: configured.settings.quorum })
      : noticeModal('Request deletion', notConfiguredText(configured.missing, ctx.setUpBy));
    await openModal(client, body.trigger_id, view);
  };

  deps.commands.register(deletionSubcommand(ctx));
  deps.home.add(deletionHomeEntry(ctx));
  deps.decisions.provide(offeredDecision(ctx));
  const timing = sweeperTiming(deps.config.mint.timeoutMs);
  deps.background.schedule(deletionSweeperJob(ctx, timing));
  deps.background.schedule(stepCompleterJob(ctx, timing.intervalMs));
  deps.background.schedule(reminderJob(ctx, deps));
  deps.workspaces.onUninstall((teamId) => cancelWorkspaceDeletions(ctx, teamId));

  /** Another box for IDs in the request form. */
  const addIdsBox = async ({ body, client, teamId }: ButtonRequest) => {
    const view = body.view;
    if (!view) return;
    const configured = ctx.settingsIn(workspaceOf(ctx, teamId));
    // Same block ids as before: Slack keeps what was typed in the existing boxes.
    await client.views
      .update({
        view_id: view.id,
        hash: view.hash,
        view: deletionRequestView({
          boxes: boxesOf(view.private_metadata) + 1,
          ...keptSource(view.private_metadata),
          quorum: configured.ok ? configured.settings.quorum : undefined,
        }),
      })
      .catch((error: unknown) => ctx.logger.info({ err: error }, 'could not add a box (the view changed meanwhile)'));
  };
  // Home's "See all": the list is read, then shown (the trigger allows 3 s; reads take milliseconds).
  const seeAll =
    (view: typeof allApprovalsView) =>
    async ({ body, client, teamId }: ButtonRequest) =>
      openModal(client, body.trigger_id, await view(ctx, workspaceOf(ctx, teamId), body.user.id));

  listen(app, deps).declared(DELETIONS, {
    shortcuts: { request: openRequestForm },
    messageShortcuts: { requestFromMessage: openFormFromMessage(ctx) },
    steps: { requestDeletion: requestDeletionStep(ctx) },
    buttons: {
      requestFromHome: openRequestForm,
      addIdsBox,
      approve: handleDecisionButton(ctx, 'approve'),
      reject: handleDecisionButton(ctx, 'reject'),
      retry: handleRetryButton(ctx),
      cancel: handleCancelButton(ctx),
      allApprovals: seeAll(allApprovalsView),
      allOwnRequests: seeAll(ownRequestsView),
    },
    forms: {
      request: handleDeletionRequestSubmission(ctx),
      approve: handleApproveSubmission(ctx),
      reject: handleRejectSubmission(ctx),
    },
  });
}

/** What opening the request form needs of a shortcut or a button. */
interface FormOpener {
  body: { trigger_id: string };
  client: WebClient;
  teamId: string;
}

/** The message a form was opened from, carried over when the form is rebuilt. */
function keptSource(privateMetadata: string | undefined): { source?: string } {
  const source = signedSourceOf(privateMetadata);
  return source ? { source } : {};
}
