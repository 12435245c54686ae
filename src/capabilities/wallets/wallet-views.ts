import type { ModalView } from '@slack/types';
import type { CreateWalletRequest } from '../../platform/mint/schemas.js';
import { context, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { modal } from '../../platform/blocks/modal.js';
import { escapeMrkdwn, inlineCode, escapeStrayMrkdwn } from '../../platform/blocks/mrkdwn.js';

const TITLE = 'Create wallet';

/** Who the wallet is for, as mrkdwn: the customer ID (the user's) escaped, in code in the blocks. */
const forWhom = (request: CreateWalletRequest, style: 'text' | 'code') =>
  request.userId
    ? `customer ${style === 'text' ? escapeMrkdwn(request.userId) : inlineCode(request.userId)}`
    : 'a new user';

export function creatingWalletView(request: CreateWalletRequest): ModalView {
  return modal({
    title: TITLE,
    close: 'Close',
    blocks: [
      section(`:hourglass_flowing_sand: Creating a wallet for ${forWhom(request, 'code')}…`),
      context('The result also comes to you as a direct message, so you can close this.'),
    ],
  });
}

export function walletCreatedView(request: CreateWalletRequest): ModalView {
  return modal({
    title: 'Wallet created',
    close: 'Done',
    clearOnClose: true,
    blocks: walletCreatedMessage(request).blocks,
  });
}

export function walletCreatedMessage(request: CreateWalletRequest): MessageContent {
  return message(`Wallet created for ${forWhom(request, 'text')}`, [
    section(`:white_check_mark: *Wallet created* for ${forWhom(request, 'code')}.`),
    context(
      request.userId
        ? 'The Mint service chose the chain.'
        : 'The Mint service created the user and chose the chain; it does not return the new customer ID.',
    ),
  ]);
}

export function walletFailedMessage(
  request: CreateWalletRequest,
  reason: string,
  maybeCreated = false,
): MessageContent {
  return message(`Could not create a wallet for ${forWhom(request, 'text')}. ${escapeStrayMrkdwn(reason)}`, [
    section(`:x: *Could not create a wallet* for ${forWhom(request, 'code')}.\n${escapeStrayMrkdwn(reason)}`),
    context(
      maybeCreated
        ? 'Once you know the wallet was not created, run `/mintlink wallet` to try again.'
        : 'Run `/mintlink wallet` to try again.',
    ),
  ]);
}
