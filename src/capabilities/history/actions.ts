import { declare } from '../../platform/slack/pipeline/declarations.js';

/**
 * Everything History answers in Slack, declared once: register.ts gives each its listener, the builders make
 * each button from it, and test/lint/declarations.test.ts holds it to manifest.yml.
 */
export const HISTORY = declare('history', {
  buttons: {
    openFromHome: { actionId: 'home_history', label: 'History' },
    previous: { actionId: 'history_previous', label: '◀ Previous' },
    next: { actionId: 'history_next', label: 'Next ▶' },
    // Beside a page whose search stopped before it filled: goes on from there.
    keepSearching: { actionId: 'history_keep_searching', label: 'Keep searching' },
    // One on each result: its value is the result's id.
    details: { actionId: 'history_details', label: 'Details' },
  },
  forms: { search: { callbackId: 'history_search', title: 'History' } },
});
