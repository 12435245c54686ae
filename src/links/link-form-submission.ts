import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { runAudited } from '../audit/run-audited.js';
import { sendDirectMessage } from '../slack-ui/direct-message.js';
import { updateModal } from '../slack-ui/update-modal.js';
import { checkLinkForm, linkFormView, readLinkForm } from './link-form.js';
import { linkUrls } from '../mint-api/link-urls.js';
import { creatingLinkView, linkCreatedMessage, linkCreatedView, linkFailedMessage } from './link-views.js';
import { firstDelivery, submissionKey } from '../slack-ui/deliver-once.js';
import { noteOutcome, requestOf } from '../observability/request-context.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/**
 * "Create mint link" submitted: wrong fields get inline errors (no call); otherwise the modal shows
 * "Creating…" at once, POST /v1/link runs, and the modal shows the link, or the form again, still filled,
 * with what went wrong. The requester also gets the result as a DM.
 */
export function handleLinkFormSubmission(deps: Pick<CapabilityDeps, 'mintApi' | 'store' | 'logger' | 'home'>) {
  return async ({ ack, body, view, client, context }: Args): Promise<void> => {
    const slackRequest = requestOf(context);
    const values = readLinkForm(view.state.values);
    const checked = checkLinkForm(values, new Date());
    if (!checked.ok) {
      noteOutcome(slackRequest, 'invalid_input');
      await ack({ response_action: 'errors', errors: checked.errors });
      return;
    }
    const { request } = checked;
    await ack({ response_action: 'update', view: creatingLinkView(request.nftId) });
    // Acknowledged first (Slack waits 3 s); a second delivery of the same submission ends here.
    if (!(await firstDelivery(deps.store, submissionKey(body)))) return;

    const actor = { userId: body.user.id, teamId: body.team?.id ?? body.user.team_id };
    const logger = deps.logger.child({ operation: 'link.create', user: actor.userId });
    const outcome = await runAudited(
      { ...deps, logger, request: slackRequest },
      actor,
      {
        operation: 'link.create',
        inputs: { ...request },
        thing: 'the mint link',
        done: 'created',
        detail: (link) => linkUrls(link)[0] ?? 'no URL in the answer',
      },
      () => deps.mintApi.createLink(request),
    );

    deps.home.refresh([actor.userId]);
    if (outcome.ok) {
      await updateModal(client, view.id, linkCreatedView(request, outcome.result), logger);
      await sendDirectMessage(client, actor.userId, linkCreatedMessage(request, outcome.result), logger);
    } else {
      const banner = `*Could not create the mint link.* ${outcome.reason}\nYour entries are kept below: change them if needed and press *Create* again.`;
      await updateModal(client, view.id, linkFormView(values, banner), logger);
      await sendDirectMessage(client, actor.userId, linkFailedMessage(request, outcome.reason), logger);
    }
  };
}
