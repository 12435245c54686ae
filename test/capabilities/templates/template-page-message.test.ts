import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { templatePageMessage } from '../../../src/capabilities/templates/template-page-message.js';
import { decodePageState } from '../../../src/capabilities/templates/page-state.js';
import { messageProblems } from '../../kit/block-kit-limits.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';

const state = (offset: number, limit: number, order: 'asc' | 'desc' = 'desc') => ({
  contractId: 'demo',
  offset,
  limit,
  order,
});
const templates = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => ({
    id: `t${from + i}`,
    name: `Template ${from + i}`,
    description: 'A template.',
    imageUrl: `https://img.example/${from + i}.png`,
  }));
/** The paging buttons on the page, in order: other buttons may sit beside them. */
const paging: string[] = [TEMPLATES.buttons.previous, TEMPLATES.buttons.next, TEMPLATES.buttons.order].map(
  (button) => button.actionId,
);
const buttons = (message: ReturnType<typeof templatePageMessage>) => {
  const actions = message.blocks.find((b) => b.type === 'actions');
  return (actions && 'elements' in actions ? actions.elements : [])
    .map((e) => ('action_id' in e ? e.action_id : ''))
    .filter((id) => id !== undefined && paging.includes(id));
};

describe('templatePageMessage', () => {
  it('shows contract, order and range, one section per template with its thumbnail', () => {
    const message = templatePageMessage(state(20, 10), { items: templates(10, 21), total: 123 });
    expect(message.text).toBe('Templates of demo, descending order: 21–30 of 123');
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Templates of demo' } });
    expect(message.blocks[1]).toMatchObject({
      type: 'context',
      elements: [{ text: 'Contract `demo` · descending order · 21–30 of 123' }],
    });
    expect(message.blocks[2]).toMatchObject({
      type: 'section',
      text: { text: '*Template 21* · `t21`\nA template.' },
      accessory: { type: 'image', image_url: 'https://img.example/21.png', alt_text: 'Template 21' },
    });
    expect(message.blocks).toHaveLength(13);
  });

  it('has no Previous on the first page and no Next on the last', () => {
    expect(buttons(templatePageMessage(state(0, 10), { items: templates(10), total: 123 }))).toEqual([
      TEMPLATES.buttons.next.actionId,
      TEMPLATES.buttons.order.actionId,
    ]);
    expect(buttons(templatePageMessage(state(120, 10), { items: templates(3, 121), total: 123 }))).toEqual([
      TEMPLATES.buttons.previous.actionId,
      TEMPLATES.buttons.order.actionId,
    ]);
    expect(buttons(templatePageMessage(state(110, 10), { items: templates(10, 111), total: 120 }))).toEqual([
      TEMPLATES.buttons.previous.actionId,
      TEMPLATES.buttons.order.actionId,
    ]);
    expect(buttons(templatePageMessage(state(110, 10), { items: templates(10, 111), total: undefined }))).toEqual([
      TEMPLATES.buttons.previous.actionId,
      TEMPLATES.buttons.next.actionId,
      TEMPLATES.buttons.order.actionId,
    ]);
    expect(buttons(templatePageMessage(state(0, 10), { items: templates(4), total: undefined }))).toEqual([
      TEMPLATES.buttons.order.actionId,
    ]);
  });

  it('puts the adjacent pages and the flipped order in the buttons', () => {
    const message = templatePageMessage(state(20, 10), { items: templates(10, 21), total: 123 });
    const actions = message.blocks.find((b) => b.type === 'actions') as {
      elements: Array<{ action_id: string; value: string }>;
    };
    const pagingButtons = actions.elements.filter((e) => paging.includes(e.action_id));
    expect(pagingButtons.map((e) => decodePageState(e.value))).toEqual([
      state(10, 10),
      state(30, 10),
      state(0, 10, 'asc'),
    ]);
  });

  it('says so when a page past the end is empty', () => {
    const message = templatePageMessage(state(123, 41), { items: [], total: undefined });
    expect(JSON.stringify(message.blocks)).toContain('No templates from number 124 on.');
    expect(buttons(message)).toEqual([TEMPLATES.buttons.previous.actionId, TEMPLATES.buttons.order.actionId]);
  });

  it('shows a few fields of templates of unknown shape, and plain values', () => {
    const message = templatePageMessage(state(0, 3), {
      items: [
        { sku: 'A-1', price: 5, nested: { x: 1 } },
        'just-a-name',
        { metadata: { name: 'Deep', image: 'https://i.example/d.png' } },
      ],
      total: 3,
    });
    const texts = message.blocks.filter((b) => b.type === 'section').map((b) => ('text' in b ? b.text?.text : ''));
    expect(texts).toEqual(['*Template 1*\nsku: A-1 · price: 5', '*just-a-name*', '*Deep*']);
    expect(message.blocks[4]).toMatchObject({ accessory: { image_url: 'https://i.example/d.png' } });
  });

  it('escapes what the service sends and never lets http images or markup through', () => {
    const message = templatePageMessage(state(0, 1), {
      items: [
        { name: '<!channel> & *bold*', description: '<https://evil|click>', image: 'http://plain.example/x.png' },
      ],
      total: 1,
    });
    const section = message.blocks[2] as { text: { text: string }; accessory?: unknown };
    expect(section.text.text).toBe('*&lt;!channel&gt; &amp; ∗bold∗*\n&lt;https://evil|click&gt;');
    expect(section.accessory).toBeUndefined();
  });

  it('keeps a title with stars, backticks and line breaks inside its bold', () => {
    const message = templatePageMessage(state(0, 1), {
      items: [{ id: 'a`b', name: ' Gold *VIP* <!here>\n`x`* ', description: 'd' }],
      total: 1,
    });
    const section = message.blocks[2] as { text: { text: string } };
    expect(section.text.text).toBe("*Gold ∗VIP∗ &lt;!here&gt; 'x'∗* · `a'b`\nd");
  });

  it('escapes the contract ID in the notification text and fits it in the header', () => {
    const message = templatePageMessage(
      { contractId: '<!channel>&*', offset: 0, limit: 10, order: 'asc' },
      { items: templates(1), total: 1 },
    );
    expect(message.text).toBe('Templates of &lt;!channel&gt;&amp;*, ascending order: 1–1 of 1');
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Templates of <!channel>&*' } }); // plain text
    const astral = templatePageMessage(
      { contractId: '😀'.repeat(100), offset: 0, limit: 10, order: 'asc' },
      { items: templates(1), total: 1 },
    );
    const header = astral.blocks[0] as { text: { text: string } };
    expect(header.text.text.length).toBeLessThanOrEqual(150);
    expect(header.text.text.endsWith('😀…')).toBe(true);
    expect(messageProblems(astral)).toEqual([]);
  });

  it.each(Array.from({ length: 50 }, (_, i) => i + 1))(
    'stays within Block Kit limits at limit %i with very long fields',
    (limit) => {
      const long = (i: number) => ({
        id: `id-${'9'.repeat(300)}-${i}`,
        name: `${'Ñame & <x> '.repeat(80)}${i}`,
        description: '&'.repeat(5000),
        imageUrl: `https://img.example/${'p'.repeat(2900)}.png`,
      });
      const message = templatePageMessage(
        { contractId: 'c'.repeat(200), offset: 1000, limit, order: 'asc' },
        { items: Array.from({ length: limit }, (_, i) => long(i)), total: 5000 },
      );
      expect(message.blocks.length).toBeLessThanOrEqual(50);
      expect(messageProblems(message)).toEqual([]);
    },
  );
});

describe('templatePageMessage, property-based', () => {
  const serviceText = fc.oneof(
    fc.string({ maxLength: 300, unit: 'binary' }),
    fc
      .array(fc.constantFrom('<!here>', '<@U1>', '&', '*', '_', '`', '\n', ' ', 'x', '😀'), { maxLength: 40 })
      .map((p) => p.join('')),
  );
  const template = fc.oneof(
    fc.record({ id: fc.option(serviceText, { nil: undefined }), name: serviceText, description: serviceText }),
    fc.dictionary(fc.string({ maxLength: 10 }), serviceText, { maxKeys: 5 }),
    serviceText,
  );

  it('escapes whatever the service sends, keeps titles bold, and stays within Block Kit limits', () => {
    fc.assert(
      fc.property(fc.array(template, { minLength: 1, maxLength: 12 }), (items) => {
        const message = templatePageMessage(state(0, 12), { items, total: undefined });
        expect(messageProblems(message)).toEqual([]);
        const sections = message.blocks.flatMap((b) => (b.type === 'section' && b.text ? [b.text.text] : []));
        for (const text of [message.text, ...sections]) {
          expect(text).not.toMatch(/[<>]/);
          expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
        }
        for (const text of sections) {
          const firstLine = text.split('\n')[0] ?? '';
          // A title line is a bold span (no star inside) optionally followed by the id in code.
          if (firstLine.startsWith('*')) expect(firstLine).toMatch(/^\*[^*\n]+\*( · `[^`]*`)?$/);
        }
      }),
      { numRuns: 200 },
    );
  });
});
