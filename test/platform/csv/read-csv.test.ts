import { describe, expect, it } from 'vitest';
import {
  CsvTableProblem,
  TABLE_COSTS,
  matchHeader,
  readCsv,
  type CsvRecord,
} from '../../../src/platform/csv/read-csv.js';

/** Reads `text` whole: the header and every row, or the problem (said at once, or while reading the rows). */
async function readAll(
  text: string | Buffer,
  limits: { maxRecords: number; maxTableBytes?: number },
): Promise<{ ok: true; header: string[]; records: CsvRecord[] } | { ok: false; problem: string }> {
  const table = await readCsv(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), {
    maxTableBytes: 64 * 1024 * 1024,
    ...limits,
  });
  if (!table.ok) return table;
  const records: CsvRecord[] = [];
  try {
    for await (const record of table.records) records.push(record);
  } catch (error) {
    if (error instanceof CsvTableProblem) return { ok: false, problem: error.message };
    throw error;
  }
  return { ok: true, header: table.header, records };
}

describe('readCsv', () => {
  it('reads the header and rows: quotes, a BOM, CRLF, trimmed cells, rows numbered as a spreadsheet does', async () => {
    const result = await readAll('\uFEFFemail, customerId\r\n a@b.co ,"c1;c2"\r\n"x, y","say ""hi"""\r\n', {
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
    const result = await readAll('a,b\n\n,\n""\n1,2,3\n', { maxRecords: 10 });
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
    const result = await readAll(text, { maxRecords: 10 });
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
    expect(await readAll('a\n1\n\n\n2\n', { maxRecords: 2 })).toMatchObject({
      ok: true,
      records: [{ rowNumber: 2 }, { rowNumber: 5 }],
    });
  });

  it('says what is wrong with the whole text: empty, a header only, too many rows, not CSV', async () => {
    expect(await readAll('', { maxRecords: 5 })).toEqual({ ok: false, problem: 'It is empty.' });
    expect(await readAll('a,b\n', { maxRecords: 5 })).toEqual({
      ok: false,
      problem: 'It has a header row but no rows under it.',
    });
    expect(await readAll('a\n1\n2\n3\n', { maxRecords: 2 })).toEqual({
      ok: false,
      problem: 'It has 3 rows; a job takes at most 2. Split it into smaller files.',
    });
    const quote = await readAll('a\n"1\n', { maxRecords: 5 });
    expect(quote).toMatchObject({ ok: false, problem: expect.stringMatching(/^It cannot be read as CSV/) });
  });

  it('reads a large text in pieces without losing a row cut between two of them', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `user${i}@example.com,"note, ${i}"`);
    const result = await readAll(`email,note\n${rows.join('\n')}`, { maxRecords: 5_000 });
    if (!result.ok) throw new Error(result.problem);
    expect(result.records).toHaveLength(5_000);
    expect(result.records[4_999]).toEqual({ rowNumber: 5_001, cells: ['user4999@example.com', 'note, 4999'] });
  });
});

describe('readCsv: a stream within a memory bound', () => {
  const cost = (cells: string[]) =>
    TABLE_COSTS.row + cells.reduce((sum, cell) => sum + TABLE_COSTS.cell + TABLE_COSTS.character * cell.length, 0);

  it('counts rows x cells x bytes, not the size of the file, and refuses at the row that passes the bound', async () => {
    // 100 rows of 138 one-letter cells: 27 KB of text, but 138 strings a row once read.
    const wide = Array.from({ length: 138 }, () => 'a');
    const text = ['email', ...Array.from({ length: 100 }, () => wide.join(','))].join('\n');
    const bound = cost(wide) * 40 + 10;
    const result = await readAll(text, { maxRecords: 5_000, maxTableBytes: bound });
    expect(result).toEqual({
      ok: false,
      problem:
        "It is too big to check: a check reads at most 186 KB of table (64 bytes a row, 32 a value and 2 a character), and this file passes that at row 42, which has 138 values. Keep each row to the header's columns, or split it into smaller files.",
    });
    // The same number of bytes in a few long cells is well within it.
    const long = ['email,note', ...Array.from({ length: 100 }, () => `${'b'.repeat(130)},${'c'.repeat(140)}`)];
    expect(await readAll(long.join('\n'), { maxRecords: 5_000, maxTableBytes: bound })).toMatchObject({ ok: true });
  });

  it('names the bound in megabytes', async () => {
    const row = Array.from({ length: 200 }, () => 'x').join(',');
    const text = ['h', ...Array.from({ length: 2_000 }, () => row)].join('\n');
    const result = await readAll(text, { maxRecords: 5_000, maxTableBytes: 8 * 1024 * 1024 });
    expect(result).toMatchObject({
      ok: false,
      problem: expect.stringMatching(
        /^It is too big to check: a check reads at most 8 MB of table .* at row 1,2\d\d, which has 200 values/,
      ),
    });
  });

  it('hands rows on one at a time, and stops reading when the reader stops', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `u${i}@example.com`);
    const table = await readCsv(Buffer.from(`email\n${rows.join('\n')}`), {
      maxRecords: 50_000,
      maxTableBytes: 1e9,
    });
    if (!table.ok) throw new Error(table.problem);
    const iterator = table.records[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ rowNumber: 2, cells: ['u0@example.com'] });
    await iterator.return?.(undefined); // stopping early ends the reading
  });

  it('keeps a character whose bytes fall on both sides of a piece boundary', async () => {
    // Pieces are 64 KiB: a row of 3-byte characters is cut inside a character somewhere.
    const cell = '€'.repeat(30_000);
    const result = await readAll(`note\n${cell}\n${cell}\nend`, { maxRecords: 10 });
    expect(result).toMatchObject({
      ok: true,
      records: [{ cells: [cell] }, { cells: [cell] }, { cells: ['end'] }],
    });
  });

  it('says when a broken quote comes late, after rows were already handed on', async () => {
    const text = ['email', ...Array.from({ length: 3_000 }, (_, i) => `u${i}@example.com`), '"open'].join('\n');
    const result = await readAll(text, { maxRecords: 5_000 });
    expect(result).toMatchObject({ ok: false, problem: expect.stringMatching(/^It cannot be read as CSV/) });
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
