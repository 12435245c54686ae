import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packRows, unpackRows, type NewBulkRow } from '../../../src/platform/store/bulk-jobs/draft-rows.js';

async function unpacked(data: string): Promise<NewBulkRow[]> {
  const rows: NewBulkRow[] = [];
  for await (const row of unpackRows(data)) rows.push(row);
  return rows;
}

/** Cells as people write them: line breaks, quotes, U+2028, astral characters, anything. */
const cell = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ maxLength: 30, unit: 'binary' }),
  fc.constantFrom('', '\n', '\r\n', '"', '\u2028', '😀', '=1+1'),
);
const row = fc
  .record(
    {
      rowNumber: fc.integer({ min: 2, max: 1_000_000 }),
      cells: fc.array(cell, { maxLength: 10 }),
      valid: fc.boolean(),
      request: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
      error: fc.string({ maxLength: 60 }),
    },
    { requiredKeys: ['rowNumber', 'cells', 'valid', 'request', 'error'] },
  )
  .map(({ rowNumber, cells, valid, request, error }): NewBulkRow =>
    valid ? { rowNumber, cells, request } : { rowNumber, cells, error },
  );

describe('a draft packed', () => {
  it('gives back every row as it was, in order, valid or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 40 }), async (rows) => {
        const packed = await packRows(rows);
        expect(packed).toMatchObject({ total: rows.length, valid: rows.filter((r) => r.error === undefined).length });
        expect(packed.data).toMatch(/^[A-Za-z0-9+/]*={0,2}$/); // base64: nothing a scrubber would mistake for a secret
        expect(await unpacked(packed.data)).toEqual(rows);
      }),
      { numRuns: 200 },
    );
  });

  it('is small for the repetitive rows of a CSV, and read back a row at a time', async () => {
    async function* rows(): AsyncGenerator<NewBulkRow> {
      for (let i = 0; i < 5_000; i += 1)
        yield {
          rowNumber: i + 2,
          cells: [`user${i}@example.com`, `cus_${i}`],
          request: { email: `user${i}@example.com`, customerIds: [`cus_${i}`], nftId: 'nft-1', type: 'GENERAL' },
        };
    }
    const packed = await packRows(rows());
    expect(packed.total).toBe(5_000);
    expect(packed.data.length).toBeLessThan(150_000); // the same rows as JSON text: about 700 KB
    const iterator = unpackRows(packed.data);
    expect((await iterator.next()).value).toEqual({
      rowNumber: 2,
      cells: ['user0@example.com', 'cus_0'],
      request: { email: 'user0@example.com', customerIds: ['cus_0'], nftId: 'nft-1', type: 'GENERAL' },
    });
    await iterator.return(undefined);
  });

  it('scrubs each row, and stops with the error of a reader that fails', async () => {
    const packed = await packRows([{ rowNumber: 2, cells: ['a SECRET b'], error: 'SECRET' }], (text) =>
      text.replaceAll('SECRET', '[redacted]'),
    );
    expect(await unpacked(packed.data)).toEqual([{ rowNumber: 2, cells: ['a [redacted] b'], error: '[redacted]' }]);
    async function* failing(): AsyncGenerator<NewBulkRow> {
      yield { rowNumber: 2, cells: ['x'], request: {} };
      throw new Error('unusable');
    }
    await expect(packRows(failing())).rejects.toThrow('unusable');
    await expect(unpacked('bm90IGd6aXA=')).rejects.toThrow(); // not what packRows wrote
  });
});
