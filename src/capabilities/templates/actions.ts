import { declare } from '../../platform/slack/pipeline/declarations.js';

/**
 * Everything the templates capability answers in Slack, declared once: register.ts gives each its listener,
 * the builders make each button from it, and test/lint/declarations.test.ts holds it to manifest.yml.
 */
export const TEMPLATES = declare('templates', {
  shortcuts: { browse: { callbackId: 'browse_templates' } },
  buttons: {
    browseFromHome: { actionId: 'home_browse_templates', label: 'Browse templates' },
    previous: { actionId: 'templates_previous', label: '◀ Previous' },
    next: { actionId: 'templates_next', label: 'Next ▶', style: 'primary' },
    // Its label names the order it switches to.
    order: { actionId: 'templates_order' },
  },
  forms: { browse: { callbackId: 'browse_templates_form', title: 'Browse templates' } },
  steps: { listTemplates: { callbackId: 'list_nft_templates_step', thing: 'the templates' } },
});
