import { readFileSync, existsSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeCell, writeCsvFile } from '../../../src/platform/csv/write-csv-file.js';

describe('writeCsvFile', () => {
  it('writes rows as they come, quoted where needed, and removes the file on request', async () => {
    async function* rows() {
      yield ['1', 'a, b', 'say "hi"'];
      yield ['2', 'line\nbreak', ''];
    }
    const file = await writeCsvFile(['row', 'text', 'note'], rows());
    const text = readFileSync(file.path, 'utf8');
    expect(file.size).toBe(Buffer.byteLength(text));
    expect(parse(text)).toEqual([
      ['row', 'text', 'note'],
      ['1', 'a, b', 'say "hi"'],
      ['2', 'line\nbreak', ''],
    ]);
    await file.remove();
    expect(existsSync(file.path)).toBe(false);
  });

  it('keeps spreadsheet formulas from running: a leading = + - @ tab or CR gets an apostrophe, signed numbers too', () => {
    expect(
      ['=1+1', '+cmd', '-2+3', '@SUM(A1)', '\tx', '\r=x', '-5', '+3.5', 'a=b', '1-2', ''].map((cell) => safeCell(cell)),
    ).toEqual(["'=1+1", "'+cmd", "'-2+3", "'@SUM(A1)", "'\tx", "'\r=x", "'-5", "'+3.5", 'a=b', '1-2', '']);
  });

  it('sees a formula behind whitespace, NBSP, zero-width characters and line breaks, and in fullwidth', () => {
    const hidden = [
      ' =1+1',
      '   +cmd',
      '\u00A0=HYPERLINK("http://x")',
      '\u200B=1',
      '\u200C\u200D@SUM(A1)',
      '\u2060-2',
      '\uFEFF=1',
      '\n=1',
      '\r\n+1',
      ' \n\t =1',
      '\uFF1D1+1',
      '\uFF0Bcmd',
      '\uFF0D5',
      '\uFF20SUM(A1)',
      ' \u200B\uFF1Dx',
    ];
    for (const cell of hidden) expect(safeCell(cell)).toBe(`'${cell}`);
    // Behind any invisible character Unicode has, and with any look-alike of a formula's first character.
    for (const cell of ['\u2066=1', '\u034F+1', '\u3164@x', '\uFE0F-1', '\u{E0020}=1', '\u2212 1', '\uFE66SUM(A1)'])
      expect(safeCell(cell)).toBe(`'${cell}`);
    // Text that merely contains such characters, or starts with a visible character first, stays as it is.
    for (const cell of ['a =1', 'x\u200B=1', ' a', '\u00A0text', '1\uFF0B1', ' 5', '\u200B', ' ', "'=1"])
      expect(safeCell(cell)).toBe(cell);
  });
});

/** What a spreadsheet skips before a cell's first visible character (a superset of the list). */
const INVISIBLE = [
  ...[' ', '\u00A0', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\n', '\r', '\t', '\u3000'],
  // More of Unicode's Default_Ignorable_Code_Point: isolates, Arabic letter mark, grapheme joiner, Hangul
  // fillers, variation selectors, a tag character.
  ...['\u2066', '\u2067', '\u2068', '\u2069', '\u061C', '\u034F', '\u3164', '\uFFA0', '\u115F', '\u1160'],
  ...['\uFE00', '\uFE0F', '\u180B', '\u180D', '\u{E0020}'],
];
const FORMULA_STARTS = [
  '=',
  '+',
  '-',
  '@',
  '\uFF1D',
  '\uFF0B',
  '\uFF0D',
  '\uFF20',
  '\uFE66',
  '\uFE62',
  '\uFE63',
  '\uFE6B',
  '\u2212',
];
/**
 * Every code point of the classes a reader does not see as a cell's start, enumerated over all of Unicode:
 * controls (Cc), format characters (Cf), combining marks (Mn, Me) and separators (Zs, Zl, Zp).
 */
const CLASSES = ['Cc', 'Cf', 'Mn', 'Me', 'Z'] as const;
const MEMBERS = Object.fromEntries(
  CLASSES.map((name) => {
    const pattern = new RegExp(`^\\p{${name}}$`, 'u');
    const found: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue; // lone surrogates are not characters
      const ch = String.fromCodePoint(code);
      if (pattern.test(ch)) found.push(ch);
    }
    return [name, found];
  }),
) as Record<(typeof CLASSES)[number], string[]>;
const CLASS_MEMBERS = new Set(Object.values(MEMBERS).flat());

/** The first character a reader sees, found one by one (independently of the guard's pattern). */
const firstVisible = (text: string) =>
  [...text].find((ch) => !INVISIBLE.includes(ch) && !/\s/.test(ch) && !CLASS_MEMBERS.has(ch));
const NUM_RUNS = { numRuns: 500 };

describe('safeCell, property-based', () => {
  const invisibleRun = fc.array(fc.constantFrom(...INVISIBLE), { maxLength: 8 }).map((run) => run.join(''));
  const anyText = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40, unit: 'binary' }));

  it('prefixes every cell whose first visible character starts a formula, whatever invisible run comes first', () => {
    fc.assert(
      fc.property(invisibleRun, fc.constantFrom(...FORMULA_STARTS), anyText, (run, start, rest) => {
        const cell = `${run}${start}${rest}`;
        expect(safeCell(cell)).toBe(`'${cell}`);
      }),
      NUM_RUNS,
    );
  });

  it('only ever adds one apostrophe in front, and leaves nothing a spreadsheet would run', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyText,
          fc.tuple(invisibleRun, anyText).map(([run, text]) => run + text),
        ),
        (cell) => {
          const safe = safeCell(cell);
          expect([cell, `'${cell}`]).toContain(safe);
          expect(FORMULA_STARTS).not.toContain(firstVisible(safe));
          expect(safe.startsWith('\t') || safe.startsWith('\r')).toBe(false);
        },
      ),
      NUM_RUNS,
    );
  });

  it('sees a formula behind any run of controls, format characters, combining marks and separators', () => {
    // Each class whole, so the test does not depend on which of its members a random draw picks.
    expect(MEMBERS.Cc).toHaveLength(65);
    for (const name of CLASSES) {
      expect(MEMBERS[name].length).toBeGreaterThan(0);
      for (const ch of MEMBERS[name]) {
        for (const start of ['=', '+', '-', '@'])
          expect(safeCell(`${ch}${start}1`), `U+${ch.codePointAt(0)?.toString(16)}`).toBe(`'${ch}${start}1`);
        if (!/[\t\r]/.test(ch)) expect(safeCell(`${ch}a=1`)).toBe(`${ch}a=1`); // a visible character first
      }
    }
    const runOfClasses = fc
      .array(
        fc.constantFrom(...CLASSES).chain((name) => fc.constantFrom(...MEMBERS[name])),
        { minLength: 1, maxLength: 8 },
      )
      .map((run) => run.join(''));
    fc.assert(
      fc.property(runOfClasses, fc.constantFrom(...FORMULA_STARTS), anyText, (run, start, rest) => {
        const cell = `${run}${start}${rest}`;
        expect(safeCell(cell)).toBe(`'${cell}`);
      }),
      NUM_RUNS,
    );
  });

  it('sees a formula behind NUL, NEL (U+0085) and a combining mark', () => {
    for (const cell of ['\u0000=1+1', '\u0085=1', '\u0301=1', '\u20DD+cmd', '\u0000\u0085\u0301@SUM(A1)', '\u2028-2'])
      expect(safeCell(cell)).toBe(`'${cell}`);
  });

  it('leaves a cell alone when its first visible character is anything else and it starts with no tab or CR', () => {
    const harmless = fc
      .tuple(fc.array(fc.constantFrom(' ', '\u00A0', '\u200B', '\n', '\uFEFF'), { maxLength: 5 }), anyText)
      .map(([run, text]) => run.join('') + text)
      .filter((cell) => !/^[\t\r]/.test(cell) && !FORMULA_STARTS.includes(firstVisible(cell) ?? ''));
    fc.assert(
      fc.property(harmless, (cell) => {
        expect(safeCell(cell)).toBe(cell);
      }),
      NUM_RUNS,
    );
  });
});
