import type { ModalView } from '@slack/types';
import { section } from './blocks.js';
import { modal } from './modal.js';

/** A modal that only says something (an outcome, a refusal, a failure); closing it closes the whole stack. */
export function noticeModal(title: string, mrkdwn: string): ModalView {
  return modal({ title, close: 'Close', clearOnClose: true, blocks: [section(mrkdwn)] });
}
