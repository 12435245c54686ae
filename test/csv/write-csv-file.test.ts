import { readFileSync, existsSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { safeCell, writeCsvFile } from '../../src/csv/write-csv-file.js';

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
    expect(['=1+1', '+cmd', '-2+3', '@SUM(A1)', '\tx', '\r=x', '-5', '+3.5', 'a=b', '1-2', ''].map(safeCell)).toEqual([
      "'=1+1",
      "'+cmd",
      "'-2+3",
      "'@SUM(A1)",
      "'\tx",
      "'\r=x",
      "'-5",
      "'+3.5",
      'a=b',
      '1-2',
      '',
    ]);
  });
});
