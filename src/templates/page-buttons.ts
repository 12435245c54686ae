import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { AppDeps } from '../deps.js';
import { escapeStrayMrkdwn } from '../slack-ui/mrkdwn.js';
import { respondSafely } from '../slack-ui/respond-safely.js';
import { loadTemplatePage } from './load-page.js';
import { decodePageState } from './page-state.js';
import { loadingMessage } from './template-page-message.js';
import { noteOutcome, requestOf } from '../observability/request-context.js';

type Args = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/**
 * Previous / Next / order: anyone in the conversation may click. The message is replaced in place: first
 * its buttons give way to "Loading…" (no second click meanwhile), then the new page comes. If the page
 * cannot be loaded, the message is put back as it was and only the clicker is told why.
 */
export function handlePageButton(deps: Pick<AppDeps, 'mintApi' | 'logger'>) {
  return async ({ ack, body, action, respond, client, context }: Args): Promise<void> => {
    const slackRequest = requestOf(context);
    await ack();
    const logger = deps.logger.child({ action: action.action_id, user: body.user.id });
    const recipient = { client, channelId: body.channel?.id, userId: body.user.id, logger };
    const state = decodePageState(action.value);
    if (!state) {
      noteOutcome(slackRequest, 'invalid_input');
      await respondSafely(
        respond,
        {
          response_type: 'ephemeral',
          replace_original: false,
          text: 'This button no longer works. Run `/mintlink templates` again.',
        },
        recipient,
        'This button no longer works.',
      );
      return;
    }
    // The page as Slack shows it now, to put back if the next one cannot be loaded.
    const blocks: unknown = body.message?.blocks;
    const shown = Array.isArray(blocks) ? (blocks as KnownBlock[]) : [];
    const original = { text: body.message?.text ?? '', blocks: shown };
    await respond({ replace_original: true, ...loadingMessage(original, state) }).catch((error: unknown) =>
      logger.info({ err: error }, 'could not show the loading state'),
    );

    const loaded = await loadTemplatePage({ ...deps, logger, request: slackRequest }, state);
    if (loaded.ok) {
      await respondSafely(
        respond,
        { replace_original: true, ...loaded.message },
        recipient,
        ':x: Slack did not accept the new page. Please click again.',
      );
      return;
    }
    await respond({ replace_original: true, text: original.text, blocks: original.blocks }).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not restore the page'),
    );
    await respondSafely(
      respond,
      { response_type: 'ephemeral', replace_original: false, text: `:warning: ${escapeStrayMrkdwn(loaded.reason)}` },
      recipient,
      `:warning: ${loaded.reason}`,
    );
  };
}
