import type { CapabilityDeps } from '../../deps.js';
import { createLinkAudited } from './create-link.js';
import { sendDirectMessage } from '../../platform/blocks/direct-message.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { checkLinkForm, linkFormView, readLinkForm } from './link-form.js';
import { creatingLinkView, linkCreatedMessage, linkCreatedView, linkFailedMessage } from './link-views.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { withMintAccount } from '../../tenancy/mint-accounts/require-account.js';

/**
 * "Create mint link" submitted: wrong fields get inline errors (no call); otherwise the modal shows
 * "Creating…" at once, POST /v1/link runs, and the modal shows the link, or the form again, still filled,
 * with what went wrong. The requester also gets the result as a DM.
 */
export function handleLinkFormSubmission(deps: Pick<CapabilityDeps, 'mintAccounts' | 'store' | 'logger' | 'home'>) {
  return async ({ ack, body, view, client, teamId }: FormRequest): Promise<Ended> => {
    const actor = { userId: body.user.id, teamId };
    // The account may have been removed since the form opened: the modal then says how to connect one.
    const mint = await withMintAccount(deps.mintAccounts, actor.teamId, ack);
    if (!mint) return 'refused';
    const values = readLinkForm(view.state.values);
    const checked = checkLinkForm(values, new Date());
    if (!checked.ok) return ack({ response_action: 'errors', errors: checked.errors });
    const { request } = checked;
    await ack({ response_action: 'update', view: creatingLinkView(request.nftId) });
    // Acknowledged first (Slack waits 3 s); a second delivery of the same submission ends in ack.
    const logger = deps.logger.child({ operation: 'link.create', user: actor.userId });
    const outcome = await createLinkAudited({ mint, store: deps.store, logger }, actor, request);

    deps.home.refreshIn(actor.teamId, [actor.userId]);
    if (outcome.ok) {
      await updateModal(client, view.id, linkCreatedView(request, outcome.result), logger);
      await sendDirectMessage(client, actor.userId, linkCreatedMessage(request, outcome.result), logger);
    } else {
      // When the service may have created it, pressing Create again could make a second link: say so once.
      const maybeCreated = outcome.error?.details.outcomeUnknown === true;
      const next = maybeCreated
        ? 'press *Create* again only once you know the mint link was not created'
        : 'change them if needed and press *Create* again';
      const banner = `*Could not create the mint link.* ${outcome.reason}\nYour entries are kept below: ${next}.`;
      await updateModal(client, view.id, linkFormView(values, banner), logger);
      const dm = linkFailedMessage(request, outcome.reason, maybeCreated);
      await sendDirectMessage(client, actor.userId, dm, logger);
      return outcome.outcome;
    }
  };
}
