import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCommandText } from '../../../src/platform/slack/commands/command-registry.js';
import { parseTemplatesArgs } from '../../../src/capabilities/templates/templates-args.js';
import { expectWithinSpec } from './within-spec.js';

const parse = (text: string) => parseTemplatesArgs(text.split(/\s+/).filter(Boolean), '/mintlink');
const USAGE = 'Usage: `/mintlink templates &lt;contractId&gt; [limit] [asc|desc]`';

describe('parseTemplatesArgs', () => {
  it.each([
    ['c1', { contractId: 'c1', offset: 0, limit: 10, order: 'desc' }],
    ['c1 25', { contractId: 'c1', offset: 0, limit: 25, order: 'desc' }],
    ['c1 asc', { contractId: 'c1', offset: 0, limit: 10, order: 'asc' }],
    ['c1 50 ASC', { contractId: 'c1', offset: 0, limit: 50, order: 'asc' }],
    ['c1 desc 1', { contractId: 'c1', offset: 0, limit: 1, order: 'desc' }],
    ['0xAbCdEf0123 7', { contractId: '0xAbCdEf0123', offset: 0, limit: 7, order: 'desc' }],
    ['c1 010', { contractId: 'c1', offset: 0, limit: 10, order: 'desc' }], // decimal digits, leading zero
  ])('reads %j', (text, state) => {
    expect(parse(text)).toEqual({ ok: true, state });
  });

  it.each([
    ['', 'Which contract? Give its ID.'],
    ['c1 0', 'The limit must be a whole number from 1 to 50 in plain digits, not `0`.'],
    ['c1 51', 'The limit must be a whole number from 1 to 50 in plain digits, not `51`.'],
    ['c1 2.5', 'The limit must be a whole number from 1 to 50 in plain digits, not `2.5`.'],
    ['c1 -3', 'The limit must be a whole number from 1 to 50 in plain digits, not `-3`.'],
    ['c1 0x10', 'The limit must be a whole number from 1 to 50 in plain digits, not `0x10`.'],
    ['c1 1e1', 'The limit must be a whole number from 1 to 50 in plain digits, not `1e1`.'],
    ['c1 +5', 'The limit must be a whole number from 1 to 50 in plain digits, not `+5`.'],
    ['c1 .5', 'The limit must be a whole number from 1 to 50 in plain digits, not `.5`.'],
    ['c1 10.', 'The limit must be a whole number from 1 to 50 in plain digits, not `10.`.'],
    ['c1 0b11', 'The limit must be a whole number from 1 to 50 in plain digits, not `0b11`.'],
    ['c1 up', '`up` is neither a limit (1–50) nor an order (`asc` or `desc`).'],
    ['c1 10 newest', '`newest` is neither a limit (1–50) nor an order (`asc` or `desc`).'],
    ['c1 10 asc extra', 'Too many words: `extra`.'],
    ['c1 10 20', 'Too many words: `20`.'],
    ['c1 asc desc', 'Too many words: `desc`.'],
    ['..', '`..` is not a contract ID'],
  ])('refuses %j', (text, problem) => {
    const result = parse(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toContain(problem);
      expect(result.problem).toContain(USAGE);
    }
  });

  it('refuses a limit with a space inside the word (no trimming by Number)', () => {
    expect(parseTemplatesArgs(['c1', ' 10'], '/mintlink')).toMatchObject({ ok: false });
    expect(parseTemplatesArgs(['c1', '10\u00a0'], '/mintlink')).toMatchObject({ ok: false });
  });

  it('shows what the user typed escaped, cut, and unable to leave its code span', () => {
    const result = parse('c1 <!channel>&`x`');
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) {
      expect(result.problem).toContain("`&lt;!channel&gt;&amp;'x'` is neither a limit");
      expect(result.problem).not.toMatch(/<|>/);
    }
    const long = parse(`c1 ${'9'.repeat(500)}`);
    if (!long.ok) expect(long.problem.length).toBeLessThan(400);
  });
});

/** Words as people (and forgers) type them: digits, signs, hex, exponents, order words, markup, anything. */
const word = fc.oneof(
  fc.constantFrom('asc', 'desc', 'ASC', 'Desc', '0', '1', '10', '50', '51', '010', '0x10', '1e1', '+5', '-3', '2.5'),
  fc.stringMatching(/^[-+.]?[0-9a-fxXeE.]{1,8}$/),
  fc.constantFrom('<!channel>', '<@U123>', '&amp;', '*bold*', '`code`', '..', '.'),
  fc.string({ minLength: 1, maxLength: 30, unit: 'binary' }),
);
const commandText = fc.oneof(
  fc.array(word, { maxLength: 5 }).map((words) => words.join(' ')),
  fc.string({ maxLength: 300, unit: 'grapheme' }),
  fc.string({ maxLength: 300, unit: 'binary' }),
);

describe('command text, property-based', () => {
  it('splitCommandText reads any text into a word and its arguments, without spaces and never throwing', () => {
    fc.assert(
      fc.property(commandText, (text) => {
        const { word: first, rest, args } = splitCommandText(text);
        expect(/\s/.test(first)).toBe(false);
        expect(args.every((a) => a.length > 0 && !/\s/.test(a))).toBe(true);
        expect(args.join(' ')).toBe(rest.split(/\s+/).filter(Boolean).join(' '));
        if (first === '') expect(text.trim()).toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('parseTemplatesArgs gives a state within the spec bounds, or a problem with the user text escaped', () => {
    fc.assert(
      fc.property(commandText, (text) => {
        const { args } = splitCommandText(`templates ${text}`);
        const result = parseTemplatesArgs(args, '/mintlink');
        if (result.ok) {
          const { state } = result;
          expectWithinSpec(state);
          expect(state.contractId).toBe(args[0]);
          // A limit given is plain digits and is the limit read.
          const given = args.slice(1).find((a) => /^[0-9]/.test(a));
          expect(given === undefined ? 10 : Number.parseInt(given, 10)).toBe(state.limit);
          expect(args.slice(1).every((a) => /^(asc|desc|[0-9]+)$/i.test(a))).toBe(true);
        } else {
          expect(result.problem.length).toBeGreaterThan(0);
          expect(result.problem.length).toBeLessThan(600);
          expect(result.problem).not.toMatch(/[<>]/);
          expect(result.problem.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
        }
      }),
      { numRuns: 300 },
    );
  });
});
