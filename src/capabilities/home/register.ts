import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { showAllActivity } from './all-activity.js';
import type { HomePublisher } from './home-publisher.js';
import { publishOnOpen } from './publish-on-open.js';
import { HOME } from './actions.js';

/**
 * App Home: published when the user opens it; "See more" of their activity. The entries are the capabilities'.
 * The Home tab every capability is given (`deps.home`) is this capability's publisher, made by the wiring before
 * any capability adds its entry: here it is asked for as what it is, since only App Home publishes.
 */
export function register(app: App, deps: CapabilityDeps & { home: HomePublisher }): void {
  const on = listen(app, deps);
  on.homeOpened(publishOnOpen(deps.home, deps.logger));
  on.declared(HOME, { buttons: { allActivity: showAllActivity(deps.store) } });
}
