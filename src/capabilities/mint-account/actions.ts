import { declare } from '../../platform/slack/pipeline/declarations.js';
import { CONNECT_MINT_ACCOUNT_ACTION } from '../../tenancy/mint-accounts/not-connected.js';

/**
 * What the Mint account capability answers, declared once. Connect's id is tenancy's: its "not connected"
 * notice, shown by every capability that needs an account, carries the button; this capability answers it.
 */
export const MINT_ACCOUNT = declare('mint-account', {
  buttons: {
    connect: { actionId: CONNECT_MINT_ACCOUNT_ACTION },
    replace: { actionId: 'mint_account_replace', label: 'Replace key' },
    // The same click delivered twice removes once (one audit entry).
    remove: { actionId: 'mint_account_remove', label: 'Remove', once: true },
  },
  forms: { connect: { callbackId: 'mint_account_form', title: 'Mint account' } },
});
