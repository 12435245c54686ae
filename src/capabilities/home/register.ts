import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import type { HomePublisher } from '../../platform/slack/app-home/home-publisher.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { showAllActivity } from './all-activity.js';
import { homeScreen } from './home-screen.js';
import { publishOnOpen } from './publish-on-open.js';
import { HOME } from './actions.js';

/**
 * App Home: its screen (the entries' parts, the user's activity, the status), published when the user opens it;
 * "See more" of their activity. The entries are the capabilities'. The Home tab every capability is given
 * (`deps.home`) is the platform's publisher, made by the wiring: here it is asked for as what it is, since only
 * App Home gives it its screen and publishes on opening.
 */
export function register(app: App, deps: CapabilityDeps & { home: HomePublisher }): void {
  deps.home.show(homeScreen({ store: deps.store, mint: (teamId) => deps.mintAccounts.statusFor(teamId) }));
  const on = listen(app, deps);
  on.homeOpened(publishOnOpen(deps.home, deps.logger));
  on.declared(HOME, { buttons: { allActivity: showAllActivity(deps.store) } });
}
