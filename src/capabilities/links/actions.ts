import { declare } from '../../platform/slack/pipeline/declarations.js';

/** Everything the links capability answers in Slack, declared once (register.ts gives each its listener). */
export const LINKS = declare('links', {
  shortcuts: { create: { callbackId: 'create_mint_link' } },
  buttons: { createFromHome: { actionId: 'home_create_link', label: 'Create mint link', style: 'primary' } },
  forms: { create: { callbackId: 'link_form', title: 'Create mint link' } },
  steps: { createLink: { callbackId: 'create_mint_link_step', thing: 'the mint link' } },
});
