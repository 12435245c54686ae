import { openModal } from '../../platform/blocks/open-modal.js';
import { slackErrorText } from '../../platform/blocks/slack-error-text.js';
import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { upstreamFailed } from '../../platform/slack/pipeline/request-ended.js';
import { type AccountContext, requireAdmin } from './account-context.js';
import { connectFormView } from './connect-form.js';

/** Connect and Replace open the same form: from Home or a message (views.open), or over a notice modal (push). */
export function openConnectForm(ctx: AccountContext) {
  return async ({ body, client, teamId }: ButtonRequest): Promise<void> => {
    const current = await ctx.accounts.account(teamId);
    await requireAdmin(ctx, body.user.id, teamId, current ? 'mint_account.replace' : 'mint_account.connect');
    const view = connectFormView({
      current,
      baseUrl: ctx.config.mintBaseUrlPerWorkspace ? { defaultBaseUrl: ctx.config.mint.baseUrl } : undefined,
    });
    if (body.view?.type !== 'modal') return openModal(client, body.trigger_id, view);
    try {
      await client.views.push({ trigger_id: body.trigger_id, view });
    } catch (error) {
      throw upstreamFailed(`:x: The form could not be opened: ${slackErrorText(error)}`, {
        log: 'could not open the Mint account form',
        cause: error,
      });
    }
  };
}
