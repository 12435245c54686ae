import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { listen } from '../request-pipeline/listen.js';

/**
 * A workspace removes the app (or revokes its bot token): every capability stops that workspace's work
 * (what each does is its own `workspaces.onUninstall`), then its installation goes. The audit log stays.
 */
export function register(app: App, deps: CapabilityDeps): void {
  listen(app, deps).uninstalled((uninstall) => deps.workspaces.uninstalled(uninstall));
}
