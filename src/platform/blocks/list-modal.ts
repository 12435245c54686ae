import type { KnownBlock, ModalView } from '@slack/types';
import { context, section } from './blocks.js';
import { LIMITS } from './limits.js';
import { modal } from './modal.js';

/** Characters of lines per section: under the 3000 limit. */
const SECTION_CHARS = 2900;

/**
 * A read-only list in a modal (Home's "See all"), as many lines as fit: lines are packed into sections, and
 * what does not fit in the view's 100 blocks is counted at the end.
 */
export function listModal(title: string, lines: readonly string[], footer?: string): ModalView {
  const sections: KnownBlock[] = [];
  let chunk: string[] = [];
  let length = 0;
  let shown = 0;
  const room = LIMITS.viewBlocks - 2; // a context line for the rest, and the footer
  for (const line of lines) {
    if (chunk.length > 0 && length + line.length + 2 > SECTION_CHARS) {
      if (sections.length + 1 >= room) break;
      sections.push(section(chunk.join('\n\n')));
      chunk = [];
      length = 0;
    }
    chunk.push(line.slice(0, SECTION_CHARS));
    length += Math.min(line.length, SECTION_CHARS) + 2;
    shown += 1;
  }
  if (chunk.length > 0) sections.push(section(chunk.join('\n\n')));
  if (lines.length === 0) sections.push(section('_Nothing here._'));
  if (shown < lines.length) sections.push(context(`…and ${lines.length - shown} more not shown.`));
  if (footer) sections.push(context(footer));
  return modal({ title, close: 'Close', blocks: sections });
}
