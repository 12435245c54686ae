import { describe, expect, it } from 'vitest';
import { parseTemplatesArgs } from '../../src/templates/templates-args.js';

const parse = (text: string) => parseTemplatesArgs(text.split(/\s+/).filter(Boolean), '/mintlink');

describe('parseTemplatesArgs', () => {
  it.each([
    ['c1', { contractId: 'c1', offset: 0, limit: 10, order: 'desc' }],
    ['c1 25', { contractId: 'c1', offset: 0, limit: 25, order: 'desc' }],
    ['c1 asc', { contractId: 'c1', offset: 0, limit: 10, order: 'asc' }],
    ['c1 50 ASC', { contractId: 'c1', offset: 0, limit: 50, order: 'asc' }],
    ['c1 desc 1', { contractId: 'c1', offset: 0, limit: 1, order: 'desc' }],
    ['0xAbCdEf0123 7', { contractId: '0xAbCdEf0123', offset: 0, limit: 7, order: 'desc' }],
  ])('reads %j', (text, state) => {
    expect(parse(text)).toEqual({ ok: true, state });
  });

  it.each([
    ['', 'Which contract? Give its ID.'],
    ['c1 0', 'The limit must be a whole number from 1 to 50, not `0`.'],
    ['c1 51', 'The limit must be a whole number from 1 to 50, not `51`.'],
    ['c1 2.5', 'The limit must be a whole number from 1 to 50, not `2.5`.'],
    ['c1 -3', 'The limit must be a whole number from 1 to 50, not `-3`.'],
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
      expect(result.problem).toContain('Usage: `/mintlink templates <contractId> [limit] [asc|desc]`');
    }
  });
});
