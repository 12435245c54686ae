import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { type ButtonRequest, listen } from '../../platform/slack/pipeline/listen.js';
import { listModal } from '../../platform/blocks/list-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import type { HomePublisher } from './home-publisher.js';
import { approvedRequestStates } from './request-states.js';
import { activityLine } from './home-view.js';
import { HOME } from './actions.js';

/**
 * App Home: published when the user opens it; "See more" of their activity. The entries are the capabilities'.
 * The Home tab every capability is given (`deps.home`) is this capability's publisher, made by the wiring before
 * any capability adds its entry: here it is asked for as what it is, since only App Home publishes.
 */
export function register(app: App, deps: CapabilityDeps & { home: HomePublisher }): void {
  const on = listen(app, deps);
  on.homeOpened(async ({ event, teamId }) => {
    if (event.tab !== 'home') return;
    // The version the user sees now (Slack sends the view's hash; the event type does not name it).
    const onScreen =
      event.view && 'hash' in event.view && typeof event.view.hash === 'string' ? event.view.hash : undefined;
    await deps.home
      .publish(event.user, teamId, onScreen)
      .catch((error: unknown) => deps.logger.warn({ err: error, user: event.user }, 'could not publish the Home tab'));
  });
  const showAllActivity = async ({ body, client, teamId }: ButtonRequest) => {
    const entries = await deps.store.audit.list({ actorId: body.user.id, teamId, limit: 100 });
    const requestStates = await approvedRequestStates(deps.store, entries);
    await openModal(
      client,
      body.trigger_id,
      listModal(
        'Your activity',
        entries.map((entry) => activityLine(entry, requestStates)),
        'The last 100 things you did with the app.',
      ),
    );
  };
  on.declared(HOME, { buttons: { allActivity: showAllActivity } });
}
