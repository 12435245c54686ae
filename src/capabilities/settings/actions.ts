import { declare } from '../../platform/slack/pipeline/declarations.js';

/** Everything the Settings capability answers in Slack, declared once (register.ts gives each its listener). */
export const SETTINGS = declare('settings', {
  buttons: { open: { actionId: 'home_open_settings' } },
  forms: { save: { callbackId: 'settings_form', title: 'Mintlink settings' } },
  // The user-group pickers of the form.
  options: { userGroups: { actionId: 'user_groups' } },
});
