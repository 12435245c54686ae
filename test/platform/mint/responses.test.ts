import { describe, expect, it } from 'vitest';
import { notFoundCount, parseTemplatePage, recordHighlights } from '../../../src/platform/mint/mint-api-client.js';

const items = [{ id: 't1' }, { id: 't2' }];

describe('parseTemplatePage', () => {
  it.each([
    ['a bare array', items, undefined],
    ['{items, total}', { items, total: 123 }, 123],
    ['{data, totalCount}', { data: items, totalCount: '57' }, 57],
    ['{rows, count}', { rows: items, count: 9 }, 9],
    ['{data: {items}, meta: {total}}', { data: { items }, meta: { total: 40 } }, 40],
    ['{results, pagination: {total_count}}', { results: items, pagination: { total_count: 3 } }, 3],
    ['an object with an array under any name', { whatever: items }, undefined],
  ])('reads %s', (_name, body, total) => {
    expect(parseTemplatePage(body)).toEqual({ items, total });
  });

  it('does not take a page count for a total', () => {
    expect(parseTemplatePage({ items, count: 1 })).toEqual({ items, total: undefined });
  });

  it('keeps unknown fields of the templates as they are', () => {
    const odd = [{ weird: { nested: true }, n: 1 }, 'just a string'];
    expect(parseTemplatePage(odd)?.items).toBe(odd);
  });

  it.each([null, 'text', 42, { total: 5 }])('rejects %j', (body) => {
    expect(parseTemplatePage(body)).toBeUndefined();
  });
});

describe('recordHighlights', () => {
  it('shows values as they are (cut), lists by length, nested objects elided, at most six', () => {
    const record = {
      id: 'l1',
      ok: true,
      n: 3,
      none: null,
      ids: ['a', 'b'],
      one: ['x'],
      nested: { a: 1 },
      long: 'z'.repeat(200),
      seventh: 7,
    };
    expect(recordHighlights(record)).toEqual([
      ['id', 'l1'],
      ['ok', 'true'],
      ['n', '3'],
      ['none', 'null'],
      ['ids', '2 items'],
      ['one', '1 item'],
    ]);
    expect(recordHighlights({ nested: { a: 1 }, long: 'z'.repeat(200) })).toEqual([
      ['nested', '…'],
      ['long', 'z'.repeat(80)],
    ]);
  });
});

describe('notFoundCount', () => {
  it('reads how many customers a delete answer says were not found, as a list or a count', () => {
    expect(notFoundCount({ deleted: ['a', 'b'], notFound: ['c'] }, 3)).toBe(1);
    expect(notFoundCount({ not_found: 2 }, 3)).toBe(2);
    expect(notFoundCount({ missing: ['x', 'y', 'z', 'w'] }, 3)).toBe(3); // never more than were sent
    expect(notFoundCount({ deleted: ['a'], notFound: [] }, 1)).toBe(0);
    expect(notFoundCount({ not_found: 0 }, 1)).toBe(0);
  });

  it('is undefined when the answer does not say', () => {
    expect(notFoundCount({ deleted: ['a'] }, 1)).toBeUndefined();
    expect(notFoundCount({ notFound: -1 }, 1)).toBeUndefined();
    expect(notFoundCount({ notFound: 'none' }, 1)).toBeUndefined();
  });
});
