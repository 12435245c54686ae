import { updateModal } from '../../platform/blocks/update-modal.js';
import type { FormRequest } from '../../platform/slack/pipeline/listen.js';
import { type AccountContext, refreshAdminsOf, requireAdmin } from './account-context.js';
import { ACCOUNT_BLOCKS, checkConnectForm, connectedView, savingView } from './connect-form.js';

/** The connect form's submission: the key (and base URL) checked, stored encrypted, logged by its last four characters. */
export function saveAccount(ctx: AccountContext) {
  return async ({ ack, body, view, client, teamId }: FormRequest): Promise<void> => {
    const replacing = (await ctx.accounts.account(teamId)) !== undefined;
    await requireAdmin(ctx, body.user.id, teamId, replacing ? 'mint_account.replace' : 'mint_account.connect');
    const checked = checkConnectForm(view.state.values, {
      asked: ctx.config.mintBaseUrlPerWorkspace,
      operators: ctx.config.mint.baseUrl,
    });
    // Inline errors only: the key typed stays in Slack's form, and is never sent back to it.
    if (!checked.ok) return ack({ response_action: 'errors', errors: checked.errors });
    // Where the host leads now (a name may lead elsewhere later: every connection checks again).
    const reached = checked.baseUrl ? await ctx.accounts.checkBaseUrlAddress(checked.baseUrl) : undefined;
    if (reached && !reached.ok)
      return ack({ response_action: 'errors', errors: { [ACCOUNT_BLOCKS.baseUrl]: reached.problem } });
    await ack({ response_action: 'update', view: savingView(replacing) }); // a second delivery ends here
    const { account, previous } = await ctx.accounts.connect(
      teamId,
      { apiKey: checked.apiKey, baseUrl: checked.baseUrl },
      { by: body.user.id },
    );
    ctx.logger.info(
      { team: teamId, user: body.user.id, keyLast4: account.keyLast4, replaced: previous !== undefined },
      previous ? 'a workspace replaced its Mint API key' : 'a workspace connected its Mint account',
    );
    await updateModal(client, view.id, connectedView(account, previous), ctx.logger);
    refreshAdminsOf(ctx, teamId, body.user.id);
  };
}
