import type {
  AllMiddlewareArgs,
  BlockAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { Logger } from '../logging/create-logger.js';
import { noticeModal } from './notice-modal.js';
import { tellUser } from './respond-safely.js';
import { updateModal } from './update-modal.js';
import { noteOutcome, requestLogFields, requestOf } from '../observability/request-context.js';
import { isDatabaseError } from '../lifecycle/database-error.js';

/** What the user is told when a listener fails unexpectedly. */
export function unexpectedFailureText(error: unknown): string {
  return isDatabaseError(error)
    ? ':warning: The app cannot reach its database right now, so nothing was changed. Please try again in a moment.'
    : ':warning: Something went wrong inside the app (the details are logged for its operator). Please try again; if it keeps failing, tell the operator.';
}

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * A button handler that never fails silently: if it throws (say, the database is away), the click is
 * still acknowledged and the person who clicked is told, ephemerally where possible.
 */
export function guardAction<A extends ActionArgs>(
  logger: Logger,
  handler: (args: A) => Promise<void>,
): (args: A) => Promise<void> {
  return async (args) => {
    let acked = false;
    const ack: A['ack'] = async () => {
      acked = true;
      await args.ack();
    };
    try {
      await handler({ ...args, ack });
    } catch (error) {
      const request = requestOf(args.context);
      noteOutcome(request, 'failed');
      logger.error({ ...requestLogFields(request), err: error }, 'button handler failed');
      if (!acked) await args.ack().catch(() => undefined);
      const text = unexpectedFailureText(error);
      const recipient = { client: args.client, channelId: args.body.channel?.id, userId: args.body.user.id, logger };
      if (args.respond)
        await args
          .respond({ response_type: 'ephemeral', replace_original: false, text })
          .catch(() => tellUser(recipient, text));
      else await tellUser(recipient, text);
    }
  };
}

/**
 * A modal submission handler that never leaves the modal hanging: if it throws before acknowledging, the
 * modal is replaced by what happened; after, it is updated to say so.
 */
export function guardView<A extends ViewArgs>(
  logger: Logger,
  title: string,
  handler: (args: A) => Promise<void>,
): (args: A) => Promise<void> {
  return async (args) => {
    let acked = false;
    const ack = (async (response?: Parameters<A['ack']>[0]) => {
      acked = true;
      await args.ack(response);
    }) as A['ack'];
    try {
      await handler({ ...args, ack });
    } catch (error) {
      const request = requestOf(args.context);
      noteOutcome(request, 'failed');
      logger.error({ ...requestLogFields(request), err: error }, 'modal submission failed');
      const view = noticeModal(title, unexpectedFailureText(error));
      if (!acked) await args.ack({ response_action: 'update', view }).catch(() => undefined);
      else await updateModal(args.client, args.view.id, view, logger);
    }
  };
}
