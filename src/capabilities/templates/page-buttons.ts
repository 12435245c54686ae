import type { KnownBlock } from '@slack/types';
import type { CapabilityDeps } from '../../deps.js';
import type { ButtonRequest, Ended } from '../../platform/slack/pipeline/listen.js';
import { RequestEnded, invalidInput } from '../../platform/slack/pipeline/request-ended.js';
import { escapeStrayMrkdwn } from '../../platform/blocks/mrkdwn.js';
import { respondSafely } from '../../platform/blocks/respond-safely.js';
import { loadTemplatePage } from './load-page.js';
import { decodePageState } from './page-state.js';
import { loadingMessage } from './template-page-message.js';

/**
 * Previous / Next / order: anyone in the conversation may click. The message is replaced in place: first
 * its buttons give way to "Loading…" (no second click meanwhile), then the new page comes. If the page
 * cannot be loaded, the message is put back as it was and only the clicker is told why.
 */
export function handlePageButton(deps: Pick<CapabilityDeps, 'mintAccounts' | 'logger'>) {
  return async ({ body, action, respond, client, teamId }: ButtonRequest): Promise<Ended> => {
    const logger = deps.logger.child({ action: action.action_id, user: body.user.id });
    const state = decodePageState(action.value);
    if (!state) throw invalidInput('This button no longer works. Run `/mintlink templates` again.');
    // The account of the workspace whose installation the click reached (in a shared channel, also for a
    // person of another organisation).
    const mint = await deps.mintAccounts.forTeam(teamId);
    // The page as Slack shows it now, to put back if the next one cannot be loaded.
    const blocks: unknown = body.message?.blocks;
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Slack's message as it holds it: blocks the app posted, handed back as they were
    const shown = Array.isArray(blocks) ? (blocks as KnownBlock[]) : [];
    const original = { text: body.message?.text ?? '', blocks: shown };
    await respond({ replace_original: true, ...loadingMessage(original, state) }).catch((error: unknown) =>
      logger.info({ err: error }, 'could not show the loading state'),
    );

    const loaded = await loadTemplatePage({ mint, logger }, state);
    if (loaded.ok) {
      const recipient = { client, channelId: body.channel?.id, userId: body.user.id, logger };
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
    throw new RequestEnded(loaded.outcome, `:warning: ${escapeStrayMrkdwn(loaded.reason)}`);
  };
}
