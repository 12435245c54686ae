import { describe, expect, it } from 'vitest';
import { linkRowRequest, walletRowRequest } from '../../../src/platform/mint/row-requests.js';

const now = new Date('2030-01-01T00:00:00Z');
const defaults = { nftId: 'nft-d', walletOptions: 'CUSTODIAL' as const, type: 'GENERAL' as const, isActive: true };

describe('linkRowRequest', () => {
  it('starts from the defaults and takes every cell the row gives', () => {
    expect(
      linkRowRequest(
        {
          email: ' ann@example.com ',
          customerId: 'c1; c2  c3',
          maxCheckoutQuantity: '3',
          walletOptions: 'custodial',
          type: 'general',
          isActive: 'No',
          startDate: '2030-02-01T09:00:00Z',
          endDate: '2030-03-01T09:00:00+01:00',
          nftId: 'nft-row',
        },
        defaults,
        now,
      ),
    ).toEqual({
      ok: true,
      request: {
        email: 'ann@example.com',
        customerId: ['c1', 'c2', 'c3'],
        maxCheckoutQuantity: 3,
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
        isActive: false,
        startDate: '2030-02-01T09:00:00Z',
        endDate: '2030-03-01T09:00:00+01:00',
        nftId: 'nft-row',
      },
    });
    expect(linkRowRequest({ email: '' }, { ...defaults, startDate: '2030-02-01T00:00:00Z' }, now)).toEqual({
      ok: true,
      request: { ...defaults, startDate: '2030-02-01T00:00:00Z' },
    });
  });

  it('names every problem by column', () => {
    const result = linkRowRequest(
      {
        email: 'nope',
        customerId: 'c1;c1;bad id!',
        maxCheckoutQuantity: '1.5',
        walletOptions: 'SELF',
        type: 'SPECIAL',
        isActive: 'maybe',
        startDate: 'tomorrow',
      },
      {},
      now,
    );
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(Object.fromEntries(problems.map((p) => [p.column, p.message]))).toEqual({
      walletOptions: 'must be CUSTODIAL',
      type: 'must be GENERAL',
      isActive: 'must be true or false',
      maxCheckoutQuantity: 'must be a whole number, 1 or more',
      customerId: '"id!" is not a customer ID (use letters, digits and . _ : @ + -); "c1" is listed twice',
      nftId: 'is required (in the row, or as the default NFT ID)',
      email: 'must be an email address',
      startDate: 'must be an ISO 8601 date-time',
    });
  });

  it('refuses a claim that ends before it starts or has already ended, and a quantity of 0', () => {
    const problems = (cells: Record<string, string>) => {
      const r = linkRowRequest(cells, defaults, now);
      return r.ok ? [] : r.problems.map((p) => `${p.column}: ${p.message}`);
    };
    expect(problems({ startDate: '2030-05-01T00:00:00Z', endDate: '2030-04-01T00:00:00Z' })).toEqual([
      'endDate: must be after the start',
    ]);
    expect(problems({ endDate: '2029-12-31T23:59:59Z' })).toEqual(['endDate: has already passed']);
    expect(problems({ maxCheckoutQuantity: '0' })).toEqual(['maxCheckoutQuantity: must be at least 1']);
  });
});

describe('linkRowRequest customer IDs', () => {
  it('takes at most 100 in one row, as the form does', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`).join(' ');
    expect(linkRowRequest({ customerId: ids(100) }, defaults, now).ok).toBe(true);
    expect(linkRowRequest({ customerId: ids(101) }, defaults, now)).toEqual({
      ok: false,
      problems: [
        {
          column: 'customerId',
          message:
            'That is 101 customer IDs; a link takes at most 100. Spread them over several links (a bulk job from a CSV makes many at once)',
        },
      ],
    });
  });
});

describe('walletRowRequest', () => {
  it('sends the userId, or nothing for a new user; refuses what cannot be an id', () => {
    expect(walletRowRequest({ userId: ' cus_1 ' })).toEqual({ ok: true, request: { userId: 'cus_1' } });
    expect(walletRowRequest({ userId: '' })).toEqual({ ok: true, request: {} });
    expect(walletRowRequest({})).toEqual({ ok: true, request: {} });
    expect(walletRowRequest({ userId: 'a b' })).toMatchObject({ ok: false, problems: [{ column: 'userId' }] });
  });
});
