import type { CapabilityDeps } from '../../deps.js';
import { withMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { context, section } from '../../platform/blocks/blocks.js';
import { modal } from '../../platform/blocks/modal.js';
import { inlineCode } from '../../platform/blocks/mrkdwn.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { browseTemplatesView, checkContractId, readBrowseForm } from './browse-templates-form.js';
import { loadTemplatePage } from './load-page.js';
import { DEFAULT_LIMIT, DEFAULT_ORDER } from './page-state.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';

/** Posts the first page to the chosen conversation (its response_url), then says so in the modal. */
export function handleBrowseTemplatesSubmission(deps: Pick<CapabilityDeps, 'mintAccounts' | 'logger' | 'store'>) {
  return async ({ ack, body, view, client, respond, teamId }: FormRequest): Promise<Ended> => {
    // The account may have been removed since the form opened: the modal then says how to connect one.
    const mint = await withMintAccount(deps.mintAccounts, teamId, ack);
    if (!mint) return 'refused';
    const values = readBrowseForm(view.state.values);
    const checked = checkContractId(values.contractId);
    if (!checked.ok) return ack({ response_action: 'errors', errors: checked.errors });
    const target = body.response_urls?.[0];
    if (!respond || !target)
      return ack({ response_action: 'errors', errors: { conversation: 'Choose a conversation to post the list in.' } });
    const { contractId } = checked;
    await ack({
      response_action: 'update',
      view: modal({
        title: 'Browse templates',
        close: 'Close',
        blocks: [section(`:hourglass_flowing_sand: Loading the templates of ${inlineCode(contractId)}…`)],
      }),
    });
    // Acknowledged first (Slack waits 3 s); a second delivery of the same submission ends in ack.

    const logger = deps.logger.child({ user: body.user.id, contractId });
    const loaded = await loadTemplatePage(
      { mint, logger },
      { contractId, offset: 0, limit: DEFAULT_LIMIT, order: DEFAULT_ORDER },
    );
    let problem = loaded.ok ? undefined : loaded.reason;
    if (loaded.ok) {
      try {
        await respond({ response_type: 'in_channel', ...loaded.message });
      } catch (error) {
        logger.warn({ err: error }, 'the conversation refused the list');
        problem = 'Slack did not accept the list in that conversation. Choose another one or try again.';
      }
    }
    const next = problem
      ? browseTemplatesView(values, problem)
      : modal({
          title: 'Browse templates',
          close: 'Done',
          clearOnClose: true,
          blocks: [
            section(`:white_check_mark: Posted the templates of ${inlineCode(contractId)} in <#${target.channel_id}>.`),
            context('Anyone there can page through them.'),
          ],
        });
    await updateModal(client, view.id, next, logger);
    if (!loaded.ok) return loaded.outcome;
    return problem ? 'upstream_error' : undefined;
  };
}
