import type { ActionsBlock, Button, KnownBlock, SectionBlock } from '@slack/types';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { TemplatePage } from '../../platform/mint/mint-api-client.js';
import { context, header, message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { LIMITS } from '../../platform/blocks/limits.js';
import { bold, cutText, escapeAndCut, escapeMrkdwn, inlineCode } from '../../platform/blocks/mrkdwn.js';
import { encodePageState, type PageState } from './page-state.js';
import { templateFields } from './template-fields.js';
import { TEMPLATES } from './actions.js';

/** Header, context line and buttons; the rest of the 50 blocks are for templates. */
const FIXED_BLOCKS = 3;
const TEMPLATE_SLOTS = LIMITS.messageBlocks - FIXED_BLOCKS;
/**
 * Text of all templates together. Slack documents only per-block limits, but messages of ~13k characters
 * have been refused as a whole (bolt-js#2509), so a page stays well below.
 */
const PAGE_TEXT_BUDGET = 9000;

export function rangeText(state: PageState, page: TemplatePage): string {
  const count = page.items.length;
  const range = count === 0 ? `none from ${state.offset + 1}` : `${state.offset + 1}–${state.offset + count}`;
  return page.total === undefined ? range : `${range} of ${page.total}`;
}

export function hasNextPage(state: PageState, page: TemplatePage): boolean {
  if (page.items.length < state.limit) return false;
  return page.total === undefined || state.offset + state.limit < page.total;
}

/** One page of a contract's templates, with Previous/Next (where there is such a page) and an order switch. */
export function templatePageMessage(state: PageState, page: TemplatePage): MessageContent {
  const order = state.order === 'asc' ? 'ascending' : 'descending';
  const range = rangeText(state, page);
  const blocks: KnownBlock[] = [
    // Plain text: nothing to escape, but the contract ID (up to 200 characters) is cut to the header's 150.
    header(cutText(`Templates of ${state.contractId}`, LIMITS.headerText)),
    context(`Contract ${inlineCode(state.contractId)} · ${order} order · ${range}`),
    ...templateBlocks(state, page.items),
    pageButtons(state, page),
  ];
  return message(`Templates of ${escapeMrkdwn(state.contractId)}, ${order} order: ${range}`, blocks);
}

/** The page as it is, with its buttons replaced by a note while the next page loads. */
export function loadingMessage(current: { text?: string; blocks?: KnownBlock[] }, target: PageState): MessageContent {
  const kept = (current.blocks ?? []).filter((b) => b.type !== 'actions');
  return message(current.text || 'Templates', [
    ...kept.slice(0, LIMITS.messageBlocks - 1),
    context(`:hourglass_flowing_sand: Loading ${target.offset + 1}–${target.offset + target.limit}…`),
  ]);
}

function templateBlocks(state: PageState, items: readonly unknown[]): SectionBlock[] {
  if (items.length === 0) return [section(`_No templates from number ${state.offset + 1} on._`)];
  const perSection = Math.ceil(items.length / TEMPLATE_SLOTS);
  const budget = Math.max(100, Math.min(700, Math.floor(PAGE_TEXT_BUDGET / items.length)));
  const sections: SectionBlock[] = [];
  for (let i = 0; i < items.length; i += perSection) {
    const group = items
      .slice(i, i + perSection)
      .map((item, j) => ({ fields: templateFields(item), n: state.offset + i + j + 1 }));
    const text = group.map((t) => templateText(t.fields, t.n, budget)).join('\n\n');
    const single = group.length === 1 ? group[0] : undefined;
    const image = single?.fields.imageUrl;
    sections.push({
      type: 'section',
      text: { type: 'mrkdwn', text },
      ...(image
        ? {
            accessory: {
              type: 'image',
              image_url: image,
              alt_text: cutText(single?.fields.title ?? `Template ${single?.n}`, LIMITS.imageAltText),
            },
          }
        : {}),
    });
  }
  return sections;
}

/**
 * One template in at most `budget` characters: title and id, then description or a few fields. Everything
 * comes from the service, so all of it is escaped, and the title cannot end its bold.
 */
function templateText(fields: ReturnType<typeof templateFields>, n: number, budget: number): string {
  const title = bold(fields.title ?? '', Math.min(122, Math.floor(budget / 3))) || (fields.id ? '' : `*Template ${n}*`);
  const id = fields.id ? inlineCode(cutText(fields.id, 60)) : '';
  const first = [title, id].filter(Boolean).join(' · ');
  const left = budget - first.length - 1;
  if (fields.description && left > 10) return `${first}\n${escapeAndCut(fields.description, left)}`;
  if (fields.other.length > 0 && left > 10) {
    return `${first}\n${escapeAndCut(fields.other.map(([k, v]) => `${k}: ${v}`).join(' · '), left)}`;
  }
  return first;
}

function pageButtons(state: PageState, page: TemplatePage): ActionsBlock {
  const { buttons } = TEMPLATES;
  const to = (target: PageState) => ({ value: encodePageState(target) });
  const elements: Button[] = [];
  if (state.offset > 0)
    elements.push(buttonOf(buttons.previous, to({ ...state, offset: Math.max(0, state.offset - state.limit) })));
  if (hasNextPage(state, page))
    elements.push(buttonOf(buttons.next, to({ ...state, offset: state.offset + state.limit })));
  const flipped = state.order === 'asc' ? 'desc' : 'asc';
  elements.push(
    buttonOf(buttons.order, {
      ...to({ ...state, order: flipped, offset: 0 }),
      label: flipped === 'asc' ? '⇅ Ascending order' : '⇅ Descending order',
    }),
  );
  return { type: 'actions', elements };
}
