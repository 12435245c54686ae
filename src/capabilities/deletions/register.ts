import { DELETIONS } from './actions.js';
import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { handleCancelButton, handleDecisionButton, handleRetryButton, offeredDecision } from './decision-buttons.js';
import { handleApproveSubmission, handleRejectSubmission } from './decision-modal.js';
import { deletionContext } from './deletion-context.js';
import { statusLine } from './messages.js';
import { addIdsBox, openRequestForm } from './request-form-buttons.js';
import { seeAll } from './see-all.js';
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
  deps.commands.register(deletionSubcommand(ctx));
  deps.home.add(deletionHomeEntry(ctx));
  deps.decisions.provide(offeredDecision(ctx), statusLine);
  const timing = sweeperTiming(deps.config.mint.timeoutMs);
  deps.background.schedule(deletionSweeperJob(ctx, timing));
  deps.background.schedule(stepCompleterJob(ctx, timing.intervalMs));
  deps.background.schedule(reminderJob(ctx, deps));
  deps.workspaces.onUninstall((teamId) => cancelWorkspaceDeletions(ctx, teamId));

  const openForm = openRequestForm(ctx);
  listen(app, deps).declared(DELETIONS, {
    shortcuts: { request: openForm },
    messageShortcuts: { requestFromMessage: openFormFromMessage(ctx) },
    steps: { requestDeletion: requestDeletionStep(ctx) },
    buttons: {
      requestFromHome: openForm,
      addIdsBox: addIdsBox(ctx),
      approve: handleDecisionButton(ctx, 'approve'),
      reject: handleDecisionButton(ctx, 'reject'),
      retry: handleRetryButton(ctx),
      cancel: handleCancelButton(ctx),
      allApprovals: seeAll(ctx, allApprovalsView),
      allOwnRequests: seeAll(ctx, ownRequestsView),
    },
    forms: {
      request: handleDeletionRequestSubmission(ctx),
      approve: handleApproveSubmission(ctx),
      reject: handleRejectSubmission(ctx),
    },
  });
}
