import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import { type Outcome, noteOutcome, requestLogFields, requestOf } from '../../ops/telemetry/request-context.js';
import { firstDelivery } from './deliver-once.js';
import { NOT_SERVED_TEXT, type OrgWorkspaceCheck } from './org-workspace.js';
import type { WorkspaceOfRequest } from './request-workspace.js';
import type { Store } from '../../store/store.js';
import { reportStepEnd } from '../workflow-steps/report-step.js';
import type { SlackCallHooks } from '../web-api/web-client-options.js';
import { unexpectedStepFailureText } from '../workflow-steps/step-failure.js';

/** What a workflow's people read when Slack named no workspace for the step and the app knows none of its own. */
const NO_WORKSPACE_STEP_TEXT =
  'Slack did not say which workspace this workflow runs in, so nothing was done. Run the workflow again; if it keeps happening, tell the app’s operator.';

export type StepArgs = SlackEventMiddlewareArgs<'function_executed'> & AllMiddlewareArgs;

/** How a step's work ended: outputs, an error for the workflow, or still going (completed later). */
export type StepResult =
  { outputs: Record<string, unknown> } | { error: string; outcome: Outcome } | { completesLater: true };

/** What a step's work is given: the event's inputs, who runs it, and the execution's ids. */
export interface StepRun {
  args: StepArgs;
  inputs: Record<string, unknown>;
  executionId: string;
  workflowExecutionId: string | undefined;
  /**
   * The workspace the workflow runs in, decided by the pipeline as for every request (request-workspace.ts); never
   * empty (a step for no workspace ends with an error before its work runs).
   */
  teamId: string;
  /** Where the audit log says the operation came from: the workflow execution. */
  origin: string;
  logger: Logger;
}

/**
 * The listener of one custom step (a function_executed event, routed by its callback_id in routes.ts, which
 * acknowledged it as Bolt's `app.function` does); a second
 * delivery of the same execution (Slack retries events it thinks were missed) does nothing; the work's
 * result completes or fails the step (report-step.ts: retried while Slack has trouble); anything unexpected
 * fails it with a text the workflow's people can act on, and is logged.
 */
export function stepListener(
  deps: {
    store: Pick<Store, 'onceKeys'>;
    logger: Logger;
    orgWorkspaces: OrgWorkspaceCheck;
    workspaceOf: WorkspaceOfRequest;
    slackCalls: Pick<SlackCallHooks, 'retryWaitMs'>;
  },
  step: { callbackId: string; thing: string },
  work: (run: StepRun) => Promise<StepResult>,
): (args: StepArgs) => Promise<void> {
  return async (args) => {
    const { event, body } = args;
    const request = requestOf(args.context);
    const executionId = event.function_execution_id;
    const logger = deps.logger.child({ step: step.callbackId, functionExecution: executionId });
    const teamId = deps.workspaceOf(args.context, body);
    if (!(await firstDelivery(deps.store, `step:${executionId}`, teamId))) {
      logger.info('step execution delivered again; already handled');
      return;
    }
    let result: StepResult;
    try {
      if (!teamId) {
        logger.warn(requestLogFields(request), 'step naming no workspace, and the app knows none of its own: refused');
        result = { error: NO_WORKSPACE_STEP_TEXT, outcome: 'refused' };
      } else if (!(await deps.orgWorkspaces.serves(args.context, teamId))) {
        logger.warn(
          { ...requestLogFields(request), team: teamId, enterprise: args.context.enterpriseId },
          'step through an org-wide installation from a workspace it does not serve: refused',
        );
        result = { error: NOT_SERVED_TEXT, outcome: 'refused' };
      } else
        result = await work({
          args,
          inputs: event.inputs ?? {},
          executionId,
          workflowExecutionId: event.workflow_execution_id,
          origin: event.workflow_execution_id ? `workflow ${event.workflow_execution_id}` : 'workflow',
          teamId,
          logger,
        });
    } catch (error) {
      noteOutcome(request, 'failed');
      logger.error({ ...requestLogFields(request), err: error }, 'step failed unexpectedly');
      result = { error: unexpectedStepFailureText(error, step.thing), outcome: 'failed' };
    }
    if ('completesLater' in result) return;
    if ('error' in result) noteOutcome(request, result.outcome);
    try {
      // The listener's client carries the execution's token (Bolt's attachFunctionToken). It is short-lived and
      // may be revoked meanwhile (a step that waited on the Mint service): then the bot token ends the step.
      const reported = await reportStepEnd(args.client, executionId, result, {
        tokens: [undefined, args.context.botToken],
        retryWaitMs: deps.slackCalls.retryWaitMs,
      });
      if (reported === 'gone') logger.warn('the step had already ended in Slack');
    } catch (error) {
      noteOutcome(request, 'upstream_error');
      logger.error({ err: error }, 'could not tell Slack how the step ended; the workflow shows it running');
    }
  };
}
