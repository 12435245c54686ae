import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { HomeOpenedRequest } from '../../platform/slack/pipeline/listen.js';
import type { HomePublisher } from '../../platform/slack/app-home/home-publisher.js';

/** The user opened the app's Home tab: theirs is published, over the version on their screen. */
export function publishOnOpen(publisher: Pick<HomePublisher, 'publish'>, logger: Logger) {
  return async ({ event, teamId }: HomeOpenedRequest): Promise<void> => {
    if (event.tab !== 'home') return;
    // The version the user sees now (Slack sends the view's hash; the event type does not name it).
    const onScreen =
      event.view && 'hash' in event.view && typeof event.view.hash === 'string' ? event.view.hash : undefined;
    await publisher
      .publish(event.user, teamId, onScreen)
      .catch((error: unknown) => logger.warn({ err: error, user: event.user }, 'could not publish the Home tab'));
  };
}
