import { describe, expect, it } from 'vitest';
import {
  createLinkRequestSchema,
  createWalletRequestSchema,
  customerIdSchema,
  deleteCustomersRequestSchema,
  listTemplatesRequestSchema,
} from '../../../src/platform/mint/schemas.js';

const issues = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  result.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('createLinkRequestSchema', () => {
  it('applies the defaults of the spec (type GENERAL, isActive true)', () => {
    expect(createLinkRequestSchema.parse({ nftId: 'n1', walletOptions: 'CUSTODIAL' })).toEqual({
      nftId: 'n1',
      walletOptions: 'CUSTODIAL',
      type: 'GENERAL',
      isActive: true,
    });
  });

  it('accepts every field of the spec', () => {
    const link = {
      email: 'ann@example.com',
      customerId: ['c-1', 'c-2'],
      maxCheckoutQuantity: 3,
      walletOptions: 'CUSTODIAL',
      startDate: '2027-01-01T10:00:00Z',
      endDate: '2027-01-02T10:00:00.000+02:00',
      nftId: 'nft-9',
      type: 'GENERAL',
      isActive: false,
    };
    expect(createLinkRequestSchema.parse(link)).toEqual(link);
  });

  it('rejects what the spec does not allow, every problem at once', () => {
    const result = createLinkRequestSchema.safeParse({
      email: 'not-an-email',
      customerId: ['ok', 'has space', 'ok'],
      maxCheckoutQuantity: 1.5,
      walletOptions: 'SELF_CUSTODY',
      startDate: 'tomorrow',
      nftId: '',
      type: 'SPECIAL',
    });
    expect(issues(result)).toEqual(
      expect.arrayContaining([
        'email: must be an email address',
        'customerId.1: must be 1-128 letters, digits or . _ : @ + - (starting with a letter or digit)',
        'customerId.2: "ok" is listed twice',
        'maxCheckoutQuantity: must be a whole number',
        'startDate: must be an ISO 8601 date-time',
        'nftId: is required',
      ]),
    );
    expect(issues(result).some((i) => i.startsWith('walletOptions:'))).toBe(true);
    expect(issues(result).some((i) => i.startsWith('type:'))).toBe(true);
  });

  it('rejects an end not after the start, a quantity below 1 and unknown fields', () => {
    expect(
      issues(
        createLinkRequestSchema.safeParse({
          nftId: 'n',
          walletOptions: 'CUSTODIAL',
          startDate: '2027-01-02T00:00:00Z',
          endDate: '2027-01-02T00:00:00Z',
        }),
      ),
    ).toEqual(['endDate: must be after the start']);
    expect(
      issues(createLinkRequestSchema.safeParse({ nftId: 'n', walletOptions: 'CUSTODIAL', maxCheckoutQuantity: 0 })),
    ).toEqual(['maxCheckoutQuantity: must be at least 1']);
    expect(createLinkRequestSchema.safeParse({ nftId: 'n', walletOptions: 'CUSTODIAL', price: 5 }).success).toBe(false);
  });
});

describe('other request schemas', () => {
  it('wallet: empty or a userId, nothing else', () => {
    expect(createWalletRequestSchema.parse({})).toEqual({});
    expect(createWalletRequestSchema.parse({ userId: 'u-1' })).toEqual({ userId: 'u-1' });
    expect(createWalletRequestSchema.safeParse({ userId: 'u-1', chain: 'eth' }).success).toBe(false);
  });

  it('delete: an array of customer ids (empty allowed by the spec), no duplicates', () => {
    expect(deleteCustomersRequestSchema.parse([])).toEqual([]);
    expect(deleteCustomersRequestSchema.parse(['a', 'b'])).toEqual(['a', 'b']);
    expect(deleteCustomersRequestSchema.safeParse(['a', 'a']).success).toBe(false);
    expect(deleteCustomersRequestSchema.safeParse({ ids: ['a'] }).success).toBe(false);
  });

  it('caps the customer IDs of a link at 100 and of a deletion at 1000, naming the limit', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
    const link = { nftId: 'n', walletOptions: 'CUSTODIAL' as const };
    expect(createLinkRequestSchema.safeParse({ ...link, customerId: ids(100) }).success).toBe(true);
    expect(createLinkRequestSchema.safeParse({ ...link, customerId: ids(20_000) }).error?.issues[0]?.message).toBe(
      'must hold at most 100 customer IDs (a link); it has 20000',
    );
    expect(deleteCustomersRequestSchema.safeParse(ids(1000)).success).toBe(true);
    expect(deleteCustomersRequestSchema.safeParse(ids(1001)).error?.issues[0]?.message).toBe(
      'must hold at most 1000 customer IDs (one deletion request); it has 1001',
    );
  });

  it('customer ids: common shapes in, non-ids out', () => {
    for (const id of ['cus_123', '42', '3f2b1c9e-7a4d-4c1b-9f0e-2d6a8b7c5e41', 'ann@example.com', 'org:team-1.a+b']) {
      expect(customerIdSchema.safeParse(id).success, id).toBe(true);
    }
    for (const id of ['', ' a', 'a b', 'a,b', '"a"', '-a', 'x'.repeat(129), 'a\nb']) {
      expect(customerIdSchema.safeParse(id).success, JSON.stringify(id)).toBe(false);
    }
  });

  it('template list: limit 1..50, whole offset >= 0, orderBy asc|desc, a contract id', () => {
    expect(listTemplatesRequestSchema.parse({ contractId: 'c', offset: 0, limit: 50, orderBy: 'desc' })).toBeTruthy();
    for (const bad of [
      { limit: 0 },
      { limit: 51 },
      { limit: 2.5 },
      { offset: -1 },
      { orderBy: 'up' },
      { contractId: '' },
      { contractId: 'a b' },
      { contractId: '..' },
    ]) {
      expect(listTemplatesRequestSchema.safeParse({ contractId: 'c', ...bad }).success, JSON.stringify(bad)).toBe(
        false,
      );
    }
  });
});
