import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inputsSummary, requestIdOf } from '../../../src/capabilities/audit-export/audit-csv.js';
import { safeCell } from '../../../src/platform/csv/write-csv-file.js';
import { describeRequest, parseExportArgs } from '../../../src/capabilities/audit-export/export-request.js';
import { textFileSource } from '../../../src/capabilities/audit-export/text-file-source.js';

describe('audit export arguments', () => {
  it('reads days, an operation and a person in any order, with defaults', () => {
    expect(parseExportArgs([])).toEqual({ ok: true, request: { days: 30, operation: undefined, userId: undefined } });
    expect(parseExportArgs(['<@U0ANA0001|ana>', 'customers.delete', '90'])).toEqual({
      ok: true,
      request: { days: 90, operation: 'customers.delete', userId: 'U0ANA0001' },
    });
    expect(parseExportArgs(['W0BOB0002', '1'])).toMatchObject({ ok: true, request: { days: 1, userId: 'W0BOB0002' } });
  });

  it('says what is wrong with what it cannot read', () => {
    const problem = (args: string[]) => {
      const parsed = parseExportArgs(args);
      return parsed.ok ? undefined : parsed.problem;
    };
    expect(problem(['3651'])).toBe('The number of days must be a whole number from 1 to 3650; "3651" is not.');
    expect(problem(['Link.Create'])).toContain('"Link.Create" is not an operation name');
    expect(problem(['<@U0ANA0001>', 'U0BOB0002'])).toBe('Give at most one person.');
    expect(problem(['@ana'])).toContain('give their member ID');
  });

  it('describes a request for messages', () => {
    expect(describeRequest({ days: 1, operation: 'link.create', userId: 'U1' })).toBe(
      'the last 1 day, operation `link.create`, actions of <@U1>',
    );
  });
});

describe('audit CSV records', () => {
  it('summarises inputs in one line: lists by count and first items, long texts cut', () => {
    expect(
      inputsSummary({
        requestId: 'DR-1',
        customerIds: { count: 1000, first: Array.from({ length: 20 }, (_, i) => `c${i}`) },
        small: ['a', 'b'],
        quantity: 3,
        active: true,
        nested: { a: 1 },
        missing: null,
        reason: 'x'.repeat(600),
      }),
    ).toBe(
      `requestId=DR-1; customerIds=[1000] c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 …; small=[2] a b; quantity=3; active=true; nested={"a":1}; missing=; reason=${'x'.repeat(499)}…`,
    );
  });

  it('writes cells a spreadsheet would run as text', () => {
    for (const cell of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=x', '\r=x']) expect(safeCell(cell)).toBe(`'${cell}`);
    for (const cell of ['plain', '', '1-2', 'a=b']) expect(safeCell(cell)).toBe(cell);
  });

  it('knows which entries belong to a deletion request', () => {
    const entry = (operation: string, inputs: Record<string, unknown>) => ({
      id: '1',
      at: new Date(),
      actorId: 'U1',
      teamId: undefined,
      origin: undefined,
      operation,
      inputs,
      outcome: 'ok',
      detail: undefined,
    });
    expect(requestIdOf(entry('customers.delete.run', { requestId: 'DR-1' }))).toBe('DR-1');
    expect(requestIdOf(entry('link.create', { requestId: 'DR-1' }))).toBeUndefined();
    expect(requestIdOf(entry('customers.delete.run', { requestId: 5 }))).toBeUndefined();
  });
});

describe('text file upload source', () => {
  it('gives the file as strings, multi-byte characters whole across chunk boundaries, and its byte length', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mintlink-text-')), 'export.csv');
    const text = `${'a'.repeat(64 * 1024 - 1)}é${'€'.repeat(50_000)}\nend`;
    writeFileSync(path, text);
    const { stream, length } = textFileSource(path);
    expect(length).toBe(Buffer.byteLength(text));
    const chunks: unknown[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => typeof c === 'string')).toBe(true);
    expect(chunks.join('')).toBe(text);
  });
});
