import type { CapabilityDeps } from '../../deps.js';
import { createWalletAudited } from './create-wallet.js';
import { sendDirectMessage } from '../../platform/blocks/direct-message.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { checkWalletForm, readWalletForm, walletFormView } from './wallet-form.js';
import { creatingWalletView, walletCreatedMessage, walletCreatedView, walletFailedMessage } from './wallet-views.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { withMintAccount } from '../../tenancy/mint-accounts/require-account.js';

/** "Create wallet" submitted: POST /v1/wallet with {} or {userId}; outcome in the modal and as a DM. */
export function handleWalletFormSubmission(deps: Pick<CapabilityDeps, 'mintAccounts' | 'store' | 'logger' | 'home'>) {
  return async ({ ack, body, view, client, teamId }: FormRequest): Promise<Ended> => {
    const actor = { userId: body.user.id, teamId };
    // The account may have been removed since the form opened: the modal then says how to connect one.
    const mint = await withMintAccount(deps.mintAccounts, actor.teamId, ack);
    if (!mint) return 'refused';
    const values = readWalletForm(view.state.values);
    const checked = checkWalletForm(values);
    if (!checked.ok) return ack({ response_action: 'errors', errors: checked.errors });
    const { request } = checked;
    await ack({ response_action: 'update', view: creatingWalletView(request) });
    // Acknowledged first (Slack waits 3 s); a second delivery of the same submission ends in ack.
    const logger = deps.logger.child({ operation: 'wallet.create', user: actor.userId });
    const outcome = await createWalletAudited({ mint, store: deps.store, logger }, actor, request);

    deps.home.refreshIn(actor.teamId, [actor.userId]);
    if (outcome.ok) {
      await updateModal(client, view.id, walletCreatedView(request), logger);
      await sendDirectMessage(client, actor.userId, walletCreatedMessage(request), logger);
    } else {
      // When the service may have created it, pressing Create again could make a second wallet: say so once.
      const maybeCreated = outcome.error?.details.outcomeUnknown === true;
      const next = maybeCreated
        ? 'Press *Create* again only once you know the wallet was not created.'
        : 'Change the customer ID if needed and press *Create* again.';
      const banner = `*Could not create the wallet.* ${outcome.reason}\n${next}`;
      await updateModal(client, view.id, walletFormView(values, banner), logger);
      const dm = walletFailedMessage(request, outcome.reason, maybeCreated);
      await sendDirectMessage(client, actor.userId, dm, logger);
      return outcome.outcome;
    }
  };
}
