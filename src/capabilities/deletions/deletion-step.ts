import { z } from 'zod';
import { splitCustomerIds } from '../../platform/mint/customer-ids.js';
import {
  describeInput,
  readStepInputs,
  stepText,
  stepTextList,
  stepUserContext,
} from '../../platform/slack/workflow-steps/step-inputs.js';
import type { StepResult, StepRun } from '../../platform/slack/pipeline/step-listener.js';
import { checkDeletionInput } from './deletion-input.js';
import { type DeletionContext, whoSetsUp } from './deletion-context.js';
import { openDeletionRequest } from './open-request.js';
import { completeWaitingStep } from './step-completion.js';
import { RequestEnded } from '../../platform/slack/pipeline/request-ended.js';

export const REQUEST_DELETION_STEP_INPUTS = {
  customer_ids: 'Customer IDs',
  reason: 'Reason',
  requester: 'Requested by',
} as const;

const inputsSchema = z.object({
  customer_ids: stepTextList,
  reason: stepText,
  requester: stepUserContext('the person asking for the deletion'),
});

/**
 * "Request deletion" in Workflow Builder: the very request `/mintlink delete` makes (the approval
 * message, four eyes, decide once, expiry), asked on behalf of the requesting user. The step stays running:
 * it is completed when the request ends (step-completion.ts), by whichever replica ends it.
 */
export function requestDeletionStep(ctx: DeletionContext) {
  return (run: StepRun): Promise<StepResult> => requestDeletion(ctx, run);
}

async function requestDeletion(ctx: DeletionContext, run: StepRun): Promise<StepResult> {
  const { teamId } = run;
  const configured = ctx.settingsIn(teamId);
  if (!configured.ok)
    return {
      error: `Customer deletion is not set up in Mintlink: ${whoSetsUp(configured.missing, ctx.setUpBy).replace(/^the app's operator/, 'its operator')}. Nothing was requested.`,
      outcome: 'refused',
    };
  const settings = configured.settings;
  const read = readStepInputs(inputsSchema, run.inputs, REQUEST_DELETION_STEP_INPUTS);
  if (!read.ok) return { error: read.error, outcome: 'invalid_input' };
  // Each item may hold one ID or several (a variable holding a pasted list): the form's parser splits them.
  const checked = checkDeletionInput(
    (read.value.customer_ids ?? []).flatMap((text) => splitCustomerIds(text)),
    read.value.reason,
  );
  if (!checked.ok) {
    const problems = [
      checked.problems.customerIds &&
        `${describeInput('customer_ids', REQUEST_DELETION_STEP_INPUTS)}: ${checked.problems.customerIds}`,
      checked.problems.reason && `${describeInput('reason', REQUEST_DELETION_STEP_INPUTS)}: ${checked.problems.reason}`,
    ].filter(Boolean);
    return { error: `Check the step's inputs: ${problems.join(' ')}`, outcome: 'invalid_input' };
  }

  // The deletion would run with the workspace's own Mint account: without one, nothing is asked.
  const noMint = await ctx.mintIn(teamId).then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof RequestEnded) return error.text;
      throw error;
    },
  );
  if (noMint) return { error: noMint, outcome: 'refused' };
  const slack = await ctx.slackIn(teamId);
  const opened = await openDeletionRequest(ctx, slack, settings, {
    requesterId: read.value.requester,
    teamId,
    customerIds: checked.customerIds,
    duplicatesRemoved: checked.duplicatesRemoved,
    reason: checked.reason,
    origin: run.origin,
    step: { functionExecutionId: run.executionId, token: run.args.event.bot_access_token },
  });
  if (opened.ok) {
    run.logger.info({ requestId: opened.request.id }, 'deletion requested by a workflow; the step waits for it');
    return { completesLater: true };
  }
  if (opened.stage === 'quorum') return { error: opened.error, outcome: 'refused' };
  if (opened.stage === 'store')
    return {
      error:
        'Mintlink cannot record the request right now (its database is unavailable), so nothing was asked. Run the workflow again in a moment.',
      outcome: 'failed',
    };
  // Cancelled at once, saying why (open-request.ts): the step ends now with that reason.
  await completeWaitingStep(ctx, slack, opened.request);
  return { completesLater: true };
}
