import type { KnownBlock, ModalView } from '@slack/types';
import { LIMITS, truncate } from './limits.js';

export interface ModalOptions {
  callbackId?: string;
  title: string;
  /** Needed whenever the view has input blocks. */
  submit?: string;
  close?: string;
  blocks: KnownBlock[];
  privateMetadata?: string;
  /** Close the whole stack, not just this view. */
  clearOnClose?: boolean;
  externalId?: string;
}

const plain = (text: string, max: number) => ({ type: 'plain_text' as const, text: truncate(text, max), emoji: true });

/** A modal view within Slack's limits (title and buttons 24 characters, 100 blocks). */
export function modal(options: ModalOptions): ModalView {
  if (options.privateMetadata && options.privateMetadata.length > LIMITS.privateMetadata) {
    throw new Error(
      `private_metadata is ${options.privateMetadata.length} characters; Slack allows ${LIMITS.privateMetadata}`,
    );
  }
  return {
    type: 'modal',
    title: plain(options.title, LIMITS.viewTitle),
    ...(options.callbackId ? { callback_id: options.callbackId } : {}),
    ...(options.submit ? { submit: plain(options.submit, LIMITS.viewButton) } : {}),
    close: plain(options.close ?? 'Cancel', LIMITS.viewButton),
    blocks: options.blocks.slice(0, LIMITS.viewBlocks),
    ...(options.privateMetadata ? { private_metadata: options.privateMetadata } : {}),
    ...(options.clearOnClose ? { clear_on_close: true } : {}),
    ...(options.externalId ? { external_id: options.externalId } : {}),
  };
}
