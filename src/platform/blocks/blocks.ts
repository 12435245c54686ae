import type {
  ActionsBlock,
  Button,
  ContextBlock,
  DividerBlock,
  HeaderBlock,
  KnownBlock,
  SectionBlock,
} from '@slack/types';
import { LIMITS, truncate } from './limits.js';

/* Small builders that apply Block Kit's text limits to whatever they are given. */

export function section(mrkdwn: string): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(mrkdwn, LIMITS.sectionText) } };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncate(text, LIMITS.headerText), emoji: true } };
}

export function context(...mrkdwn: string[]): ContextBlock {
  return {
    type: 'context',
    elements: mrkdwn
      .slice(0, LIMITS.contextElements)
      .map((text) => ({ type: 'mrkdwn' as const, text: truncate(text, LIMITS.sectionText) })),
  };
}

export function divider(): DividerBlock {
  return { type: 'divider' };
}

/** A message body: fallback text for notifications plus blocks. */
export interface MessageContent {
  text: string;
  blocks: KnownBlock[];
}

export function message(text: string, blocks: KnownBlock[]): MessageContent {
  return { text: truncate(text, LIMITS.messageText), blocks: blocks.slice(0, LIMITS.messageBlocks) };
}

/** A warning at the top of a form shown again after a failure. */
export function problemBanner(mrkdwn: string): SectionBlock {
  return section(`:warning: ${mrkdwn}`);
}

/** A button with no value (what it acts on is known from who clicked, or from its block). */
export function button(actionId: string, text: string, style?: 'primary'): Button {
  return {
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text: truncate(text, LIMITS.buttonText), emoji: true },
    ...(style ? { style } : {}),
  };
}

/** A row of buttons. */
export function actionsRow(blockId: string, ...elements: Button[]): ActionsBlock {
  return { type: 'actions', block_id: blockId, elements: elements.slice(0, LIMITS.actionsElements) };
}
