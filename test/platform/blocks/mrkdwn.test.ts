import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bold,
  codeBlock,
  cutText,
  escapeAndCut,
  escapeMrkdwn,
  escapeStrayMrkdwn,
  inlineCode,
  italic,
  linkUrl,
} from '../../../src/platform/blocks/mrkdwn.js';

/** Text as users and services send it: markup, mentions, entities, line breaks, astral characters, anything. */
const anyText = fc.oneof(
  fc.string({ maxLength: 200, unit: 'binary' }),
  fc.string({ maxLength: 200, unit: 'grapheme' }),
  fc
    .array(
      fc.constantFrom('<!channel>', '<@U1>', '&amp;', '&lt;', '&', '<', '>', '*', '_', '`', '```', '~', '\n', ' ', 'a'),
      { maxLength: 30 },
    )
    .map((parts) => parts.join('')),
);
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
/** No raw `<` or `>`, and every `&` starts one of Slack's three entities. */
const isEscaped = (text: string) => !/[<>]/.test(text) && !/&(?!(?:amp|lt|gt);)/.test(text);
const NUM_RUNS = { numRuns: 300 };

describe('escaping for Slack, property-based', () => {
  it('escapeMrkdwn leaves no control character and loses nothing', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const escaped = escapeMrkdwn(text);
        expect(isEscaped(escaped)).toBe(true);
        expect(unescape(escaped)).toBe(text);
      }),
      NUM_RUNS,
    );
  });

  it('escapeStrayMrkdwn escapes whatever is left, and changes nothing already escaped', () => {
    fc.assert(
      fc.property(anyText, anyText, (raw, other) => {
        const mixed = `${escapeMrkdwn(other)} ${raw}`;
        const escaped = escapeStrayMrkdwn(mixed);
        expect(isEscaped(escaped)).toBe(true);
        expect(escapeStrayMrkdwn(escaped)).toBe(escaped);
        expect(escapeStrayMrkdwn(escapeMrkdwn(raw))).toBe(escapeMrkdwn(raw));
      }),
      NUM_RUNS,
    );
  });

  it('escapeAndCut and cutText stay within their length and never split an entity or a character', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 2, max: 150 }), (text, max) => {
        const escaped = escapeAndCut(text, max);
        expect(escaped.length).toBeLessThanOrEqual(max);
        expect(isEscaped(escaped)).toBe(true);
        const cut = cutText(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        if (cut !== text) {
          const kept = cut.slice(0, -1);
          expect(text.startsWith(kept)).toBe(true);
          // Never half of a surrogate pair.
          const next = text.charCodeAt(kept.length);
          expect(/[\ud800-\udbff]$/.test(kept) && next >= 0xdc00 && next <= 0xdfff).toBe(false);
        }
      }),
      NUM_RUNS,
    );
  });

  it('a service string inside bold cannot end the bold', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 3, max: 300 }), (text, max) => {
        const shown = bold(text, max);
        expect(shown.length).toBeLessThanOrEqual(max);
        if (shown === '') {
          expect(text.trim()).toBe('');
          return;
        }
        // One bold span: starts and ends with a star, none inside, on one line, no edge spaces, escaped.
        expect(shown).toMatch(/^\*[^*\s`](?:[^*\n`]*[^*\s`])?\*$/);
        expect(isEscaped(shown)).toBe(true);
      }),
      NUM_RUNS,
    );
  });

  it('a service string inside italics or code cannot end them', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const slanted = italic(text);
        if (slanted) expect(slanted).toMatch(/^_[^_\s`](?:[^_\n`]*[^_\s`])?_$/);
        const code = inlineCode(text);
        if (code) expect(code).toMatch(/^`[^`\n]+`$/);
        const block = codeBlock(text);
        expect(block.slice(3, -3)).not.toContain('`');
        for (const shown of [slanted, code, block]) expect(isEscaped(shown)).toBe(true);
      }),
      NUM_RUNS,
    );
  });

  it('a link URL cannot carry a label of its own or leave its code block', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), anyText, (url, tail) => {
        const shown = linkUrl(`${url}${tail.replace(/\s/g, '')}`);
        expect(shown).not.toMatch(/[|`<>]/);
        expect(isEscaped(shown)).toBe(true);
      }),
      NUM_RUNS,
    );
  });
});

describe('escaping, examples', () => {
  it.each([
    ['*bold*', '*∗bold∗*'],
    ['  Gold <!here>\n& co  ', '*Gold &lt;!here&gt; &amp; co*'],
    ['`x`', "*'x'*"],
    ['   ', ''],
  ])('bold(%j) is %j', (text, shown) => {
    expect(bold(text)).toBe(shown);
  });

  it('keeps the links the app checked, minus a label the service could slip in', () => {
    expect(linkUrl('https://mint.example/l/1?a=1&b=2')).toBe('https://mint.example/l/1?a=1&amp;b=2');
    expect(linkUrl('https://evil.example/|https://good.example')).toBe('https://evil.example/%7Chttps://good.example');
    expect(linkUrl('https://x.example/```')).toBe('https://x.example/%60%60%60');
  });
});
