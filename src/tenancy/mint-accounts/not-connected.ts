import type { KnownBlock } from '@slack/types';
import { RequestEnded } from '../../platform/slack/pipeline/request-ended.js';
import { actionsRow, button, context, section } from '../../platform/blocks/blocks.js';

/**
 * The button that opens the "Connect your Mint account" form: on App Home and wherever someone is told that
 * no account is connected. The mint-account capability listens to it (and lets only admins through).
 */
export const CONNECT_MINT_ACCOUNT_ACTION = 'mint_account_connect';

const HOW_TO_CONNECT =
  'The person who installed Mintlink or an admin of this workspace connects it: in Slack, open *Mintlink* ' +
  '→ *Home* → *Connect your Mint account*. Ask one of them.';

/**
 * Thrown by `MintAccounts.forTeam` for a workspace that has not connected its Mint account: every command,
 * button and form answers with how to connect (and a button for the admins who can); a workflow step fails
 * with `stepText`.
 */
export class NoMintAccount extends RequestEnded {
  /** The same as plain text, for a workflow step's error (Workflow Builder shows no mrkdwn). */
  readonly stepText =
    'No Mint account is connected to this Slack workspace yet, so Mintlink cannot reach the Mint service. ' +
    'The person who installed Mintlink or a workspace admin connects it in Mintlink’s App Home ' +
    '(Connect your Mint account); then run the workflow again.';

  constructor() {
    const text = `:electric_plug: *No Mint account is connected to this workspace yet*, so Mintlink cannot reach the Mint service for you. ${HOW_TO_CONNECT}`;
    super('refused', text, notConnectedBlocks(text));
  }
}

/** The workspace's stored key cannot be opened (its sealing key was dropped from SECRETS_KEYS). */
export class UnreadableMintAccount extends RequestEnded {
  readonly stepText =
    'Mintlink cannot read the Mint API key this workspace connected (the operator changed the app’s ' +
    'encryption keys). A workspace admin must connect the Mint account again in Mintlink’s App Home.';

  constructor() {
    const text =
      ':warning: *Mintlink cannot read the Mint API key this workspace connected* (the operator changed the ' +
      'app’s encryption keys). An admin must connect the Mint account again: *Mintlink* → *Home* → ' +
      '*Connect your Mint account*.';
    super('refused', text, notConnectedBlocks(text));
  }
}

function notConnectedBlocks(text: string): KnownBlock[] {
  return [
    section(text),
    actionsRow('mint_account', button(CONNECT_MINT_ACCOUNT_ACTION, 'Connect your Mint account', 'primary')),
    context('Only the person who installed Mintlink and the admins of this workspace can connect it.'),
  ];
}
