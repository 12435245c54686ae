import { declare } from '../../platform/slack/pipeline/declarations.js';

/** What App Home itself answers (the entries' buttons are their capabilities'), declared once. */
export const HOME = declare('home', {
  buttons: { allActivity: { actionId: 'home_all_activity', label: 'See more' } },
});
