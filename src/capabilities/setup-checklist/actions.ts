import { declare } from '../../platform/slack/pipeline/declarations.js';

/** What the Setup checklist answers in Slack, declared once (register.ts gives it its listener). */
export const SETUP_CHECKLIST = declare('setup-checklist', {
  buttons: { checkAgain: { actionId: 'home_setup_recheck', label: 'Check again', style: 'primary' } },
});
