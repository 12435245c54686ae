import type { App } from '@slack/bolt';
import { SETTINGS } from './actions.js';
import type { CapabilityDeps } from '../../deps.js';
import { listen } from '../../platform/slack/pipeline/listen.js';
import { settingsHomeEntry } from './home-entry.js';
import { openSettingsForm } from './open-settings.js';
import { handleSaveSubmission } from './save-submission.js';
import { settingsContext } from './settings-context.js';
import { userGroupOptions } from './user-group-options.js';

/**
 * Settings administered in Slack: the Settings section on App Home (settings admins only), its form, the
 * user-group pickers' options, and the save (checked, compare-and-set, audited, announced).
 */
export function register(app: App, deps: CapabilityDeps): void {
  const ctx = settingsContext(deps);
  deps.home.add(settingsHomeEntry(ctx));
  listen(app, deps).declared(SETTINGS, {
    buttons: { open: openSettingsForm(ctx) },
    options: { userGroups: userGroupOptions(ctx) },
    forms: { save: handleSaveSubmission(ctx) },
  });
}
