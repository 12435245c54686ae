import type { SlackEventMiddlewareArgs } from '@slack/bolt';
import { bulkhead, type BulkheadPolicy } from 'cockatiel';
import type { PipelineStep, RequestArgs } from '../../ops/telemetry/access-log.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import type { Metrics } from '../../ops/telemetry/metrics.js';
import { noteOutcome, requestOf } from '../../ops/telemetry/request-context.js';
import { noticeModal } from '../../blocks/notice-modal.js';
import type { WorkBudget } from './work-budget.js';

/** What a person is told when the app turns their request away because it is full. */
export const BUSY_TEXT =
  ':hourglass: The app is very busy right now, so it did not start this. Please try again in a few seconds.';

/**
 * Busy answers that need a call of their own (a click's ephemeral note, a shortcut's notice modal) have a
 * small budget of their own (cockatiel's bulkhead, no queue: past it the ack is all a request gets): a flood
 * must not turn into a flood of outbound calls.
 */
const BUSY_NOTICES_AT_ONCE = 16;

/**
 * Events that change which workspaces the app serves. They are never turned away: Slack has had its 200 for an
 * event before any middleware runs and does not send it again, so one turned away would never apply (a removed
 * workspace's installation kept, its work going on). They are rare and quick.
 */
const NEVER_BUSY_EVENTS: ReadonlySet<string> = new Set([
  'app_uninstalled',
  'tokens_revoked',
  'team_access_revoked',
  'app_uninstalled_team',
  'team_access_granted',
]);

function neverBusy(args: RequestArgs): boolean {
  return 'event' in args && NEVER_BUSY_EVENTS.has(args.event.type);
}

/**
 * Admission control, the pipeline's step after the access log: every request takes a place in the work budget
 * for as long as its listeners run (after the ack too); when the budget is full it is answered "busy" at once,
 * in the way its kind allows, and nothing queues.
 */
export function admission(budget: WorkBudget, deps: { logger: Logger; metrics: Metrics }): PipelineStep {
  const notices = bulkhead(BUSY_NOTICES_AT_ONCE);
  return async (args, handle) => {
    if (budget.tryAcquire()) {
      try {
        await handle(args);
      } finally {
        budget.release();
      }
      return;
    }
    if (neverBusy(args)) {
      await handle(args);
      return;
    }
    const request = requestOf(args.context); // described by the access log, which runs first
    const kind = request?.kind ?? 'action';
    noteOutcome(request, 'busy');
    deps.metrics.busyRefusals.inc({ kind });
    deps.logger.warn({ kind, workInFlight: budget.count }, 'work budget full; request answered "busy"');
    await refuse(args, notices, deps.logger);
  };
}

const STEP_BUSY_TEXT =
  'Mintlink is very busy right now, so it did not start this step. Nothing was done; run the workflow again in a few minutes.';

type StepArgs = SlackEventMiddlewareArgs<'function_executed'>;

/** A custom step's ack and fail (Bolt gives them to function_executed events only). */
function stepControls(args: { event: { type: string } }): Pick<StepArgs, 'ack' | 'fail'> | undefined {
  if (args.event.type !== 'function_executed') return undefined;
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Bolt's middleware args are a union by kind; a workflow step's carry these two, checked before use
  const { ack, fail } = args as Partial<Pick<StepArgs, 'ack' | 'fail'>>;
  return ack && fail ? { ack, fail } : undefined;
}

async function refuse(args: RequestArgs, notices: BulkheadPolicy, logger: Logger): Promise<void> {
  if ('command' in args) return args.ack({ response_type: 'ephemeral', text: BUSY_TEXT });
  if ('options' in args) return args.ack({ options: [] });
  if ('event' in args) {
    // A workflow step would wait for ever: it is acknowledged and failed, and the workflow's people told why.
    // Only its first delivery: Slack sends again when an ack was slow, and that first delivery may be running.
    const step = stepControls(args);
    if (step) {
      await step.ack();
      if (args.context.retryNum === undefined && notices.executionSlots > 0) {
        await notices.execute(() =>
          step
            .fail({ error: STEP_BUSY_TEXT })
            .catch((error: unknown) => logger.info({ err: error }, 'could not tell the workflow the app is busy')),
        );
      }
    }
    return; // other events are acknowledged by Bolt already; Slack does not retry them, and they change nothing
  }
  if ('view' in args) {
    if (args.body.type !== 'view_submission') return args.ack();
    // Inline on the form, which stays open and filled: the person presses the button again.
    const input = args.view.blocks.find((block) => block.type === 'input' && typeof block.block_id === 'string');
    if (input?.block_id)
      return args.ack({
        response_action: 'errors',
        errors: { [input.block_id]: BUSY_TEXT.replace(/^:hourglass: /, '') },
      });
    return args.ack({ response_action: 'update', view: noticeModal('Busy', BUSY_TEXT) });
  }
  await args.ack();
  if (notices.executionSlots === 0) return; // a flood: the ack was all it gets
  await notices.execute(async () => {
    try {
      if ('shortcut' in args)
        await args.client.views.open({ trigger_id: args.shortcut.trigger_id, view: noticeModal('Busy', BUSY_TEXT) });
      else if (args.body.response_url)
        await args.respond({ response_type: 'ephemeral', replace_original: false, text: BUSY_TEXT });
    } catch (error) {
      logger.info({ err: error }, 'could not tell the user the app is busy');
    }
  });
}
