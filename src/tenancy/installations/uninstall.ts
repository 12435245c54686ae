import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';

/**
 * A workspace removes the app (or revokes its bot token): its installation goes, then every capability stops
 * that workspace's work (what each does is its own `workspaces.onUninstall`). A workspace leaving an Enterprise
 * Grid organization's org-wide installation is the same for that workspace alone; one joining it is recorded
 * as the org's. The audit log stays.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  on.uninstalled((uninstall) => deps.workspaces.uninstalled(uninstall));
  on.orgWorkspaces('left', (left) => deps.workspaces.orgWorkspacesLeft(left));
  on.orgWorkspaces('joined', (joined) => deps.workspaces.orgWorkspacesJoined(joined));
}
