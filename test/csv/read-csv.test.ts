import { describe, expect, it } from 'vitest';
import { matchHeader, readCsv } from '../../src/csv/read-csv.js';

describe('readCsv', () => {
  it('reads the header and rows: quotes, a BOM, CRLF, trimmed cells, rows numbered as a spreadsheet does', async () => {
    const result = await readCsv('\uFEFFemail, customerId\r\n a@b.co ,"c1;c2"\r\n"x, y","say ""hi"""\r\n', {
      maxRecords: 10,
    });
    expect(result).toEqual({
      ok: true,
      header: ['email', 'customerId'],
      records: [
        { rowNumber: 2, cells: ['a@b.co', 'c1;c2'] },
        { rowNumber: 3, cells: ['x, y', 'say "hi"'] },
      ],
    });
  });

  it('skips blank lines and rows of bare commas, keeps a quoted empty cell, keeps rows of the wrong width', async () => {
    const result = await readCsv('a,b\n\n,\n""\n1,2,3\n', { maxRecords: 10 });
    expect(result).toEqual({
      ok: true,
      header: ['a', 'b'],
      records: [
        { rowNumber: 4, cells: [''] },
        { rowNumber: 5, cells: ['1', '2', '3'] },
      ],
    });
  });

  it('numbers rows as a spreadsheet shows them: skipped blank rows still count, a cell with line breaks is one row', async () => {
    const text = [
      '', // a blank row above the header: the header is row 2
      'email,note',
      'a@b.co,one',
      '',
      ',',
      '  ',
      'c@d.co,"two',
      'lines"',
      'e@f.co,three',
      ',,',
      'g@h.co,four',
    ].join('\r\n');
    const result = await readCsv(text, { maxRecords: 10 });
    expect(result).toEqual({
      ok: true,
      header: ['email', 'note'],
      records: [
        { rowNumber: 3, cells: ['a@b.co', 'one'] },
        { rowNumber: 7, cells: ['c@d.co', 'two\r\nlines'] },
        { rowNumber: 8, cells: ['e@f.co', 'three'] },
        { rowNumber: 10, cells: ['g@h.co', 'four'] },
      ],
    });
    // Blank rows are not rows of the job: the limit counts the rows with data only.
    expect(await readCsv('a\n1\n\n\n2\n', { maxRecords: 2 })).toMatchObject({
      ok: true,
      records: [{ rowNumber: 2 }, { rowNumber: 5 }],
    });
  });

  it('says what is wrong with the whole text: empty, a header only, too many rows, not CSV', async () => {
    expect(await readCsv('', { maxRecords: 5 })).toEqual({ ok: false, problem: 'It is empty.' });
    expect(await readCsv('a,b\n', { maxRecords: 5 })).toEqual({
      ok: false,
      problem: 'It has a header row but no rows under it.',
    });
    expect(await readCsv('a\n1\n2\n3\n', { maxRecords: 2 })).toEqual({
      ok: false,
      problem: 'It has 3 rows; a job takes at most 2. Split it into smaller files.',
    });
    const quote = await readCsv('a\n"1\n', { maxRecords: 5 });
    expect(quote).toMatchObject({ ok: false, problem: expect.stringMatching(/^It cannot be read as CSV/) });
  });

  it('reads a large text in pieces without losing a row cut between two of them', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `user${i}@example.com,"note, ${i}"`);
    const result = await readCsv(`email,note\n${rows.join('\n')}`, { maxRecords: 5_000 });
    if (!result.ok) throw new Error(result.problem);
    expect(result.records).toHaveLength(5_000);
    expect(result.records[4_999]).toEqual({ rowNumber: 5_001, cells: ['user4999@example.com', 'note, 4999'] });
  });
});

describe('matchHeader', () => {
  const known = ['email', 'customerId', 'nftId'] as const;

  it('matches names in any case and order', () => {
    expect(matchHeader([' EMAIL ', 'nftid', 'CustomerID'], known)).toEqual({
      ok: true,
      columns: ['email', 'nftId', 'customerId'],
    });
  });

  it('refuses unknown, nameless and repeated columns, listing the known ones', () => {
    const result = matchHeader(['email', 'emial', '', 'Email', 'x'], known);
    expect(result).toEqual({
      ok: false,
      problem:
        'The header row is not right: column 3 has no name; the columns "emial", "x" are not known; "email" appear more than once. The columns are "email", "customerId", "nftId" (any case, any order).',
    });
  });
});
