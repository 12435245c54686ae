import type { InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import {
  LINK_BLOCKS,
  checkLinkForm,
  linkFormView,
  readLinkForm,
  type LinkFormValues,
} from '../../../src/capabilities/links/link-form.js';
import { viewProblems } from '../../kit/block-kit-limits.js';

const now = new Date('2026-11-21T12:00:00Z');
const base: LinkFormValues = { nftId: 'nft-1', walletOptions: 'CUSTODIAL', type: 'GENERAL', active: true };
const errorsOf = (values: Partial<LinkFormValues>) => {
  const result = checkLinkForm({ ...base, ...values }, now);
  return result.ok ? {} : result.errors;
};

describe('checkLinkForm', () => {
  it('builds the request from exactly the fields given', () => {
    expect(checkLinkForm(base, now)).toEqual({
      ok: true,
      request: { nftId: 'nft-1', walletOptions: 'CUSTODIAL', type: 'GENERAL', isActive: true },
    });
    const full = checkLinkForm(
      {
        ...base,
        active: false,
        email: 'ann@example.com',
        customerIdsText: 'c1, c2\nc3  c4;c5',
        maxQuantity: '3',
        claimStart: new Date('2026-12-01T09:30:00Z'),
        claimEnd: new Date('2026-12-24T18:00:00Z'),
      },
      now,
    );
    expect(full).toEqual({
      ok: true,
      request: {
        nftId: 'nft-1',
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
        isActive: false,
        email: 'ann@example.com',
        customerId: ['c1', 'c2', 'c3', 'c4', 'c5'],
        maxCheckoutQuantity: 3,
        startDate: '2026-12-01T09:30:00.000Z',
        endDate: '2026-12-24T18:00:00.000Z',
      },
    });
  });

  it.each([
    ['a missing NFT ID', { nftId: undefined }, LINK_BLOCKS.nftId, 'Enter the ID of the NFT to mint.'],
    [
      'a malformed email',
      { email: 'ann@' },
      LINK_BLOCKS.email,
      'Enter a valid email address, such as name@example.com.',
    ],
    [
      'malformed customer IDs',
      { customerIdsText: 'ok, b@d!, -x' },
      LINK_BLOCKS.customerIds,
      '"b@d!", "-x" are not customer IDs (use letters, digits and . _ : @ + -).',
    ],
    ['a repeated customer ID', { customerIdsText: 'c1 c2 c1' }, LINK_BLOCKS.customerIds, '"c1" is listed twice.'],
    ['quantity 0', { maxQuantity: '0' }, LINK_BLOCKS.maxQuantity, 'Enter a whole number, 1 or more.'],
    ['a negative quantity', { maxQuantity: '-2' }, LINK_BLOCKS.maxQuantity, 'Enter a whole number, 1 or more.'],
    ['a fractional quantity', { maxQuantity: '1.5' }, LINK_BLOCKS.maxQuantity, 'Enter a whole number, 1 or more.'],
    [
      'a quantity that is not a number',
      { maxQuantity: 'ten' },
      LINK_BLOCKS.maxQuantity,
      'Enter a whole number, 1 or more.',
    ],
    [
      'an end before the start',
      { claimStart: new Date('2026-12-02T00:00:00Z'), claimEnd: new Date('2026-12-01T00:00:00Z') },
      LINK_BLOCKS.claimEnd,
      'The claim must end after it starts.',
    ],
    [
      'an end equal to the start',
      { claimStart: new Date('2026-12-02T00:00:00Z'), claimEnd: new Date('2026-12-02T00:00:00Z') },
      LINK_BLOCKS.claimEnd,
      'The claim must end after it starts.',
    ],
    [
      'an end in the past',
      { claimEnd: new Date('2026-11-21T11:59:00Z') },
      LINK_BLOCKS.claimEnd,
      'The claim end has already passed. Choose a time in the future.',
    ],
    ['no wallet', { walletOptions: undefined }, LINK_BLOCKS.wallet, 'Choose a wallet.'],
  ])('puts %s on its block', (_name, values, block, message) => {
    expect(errorsOf(values)).toEqual({ [block]: message });
  });

  it('reports every wrong field at once', () => {
    expect(
      Object.keys(
        errorsOf({
          nftId: '',
          email: 'x',
          customerIdsText: 'a a',
          maxQuantity: '0',
          claimEnd: new Date('2020-01-01T00:00:00Z'),
        }),
      ).sort(),
    ).toEqual(
      [
        LINK_BLOCKS.claimEnd,
        LINK_BLOCKS.customerIds,
        LINK_BLOCKS.email,
        LINK_BLOCKS.maxQuantity,
        LINK_BLOCKS.nftId,
      ].sort(),
    );
  });

  it('takes at most 100 customer IDs for one link, and says what to do with more', () => {
    const text = Array.from({ length: 101 }, (_, i) => `c${i}`).join(' ');
    expect(errorsOf({ customerIdsText: text })[LINK_BLOCKS.customerIds]).toBe(
      'That is 101 customer IDs; a link takes at most 100. Spread them over several links (a bulk job from a CSV makes many at once).',
    );
  });

  it('names at most five bad customer IDs', () => {
    const text = Array.from({ length: 9 }, (_, i) => `bad!${i}`).join(' ');
    expect(errorsOf({ customerIdsText: text })[LINK_BLOCKS.customerIds]).toContain('and 4 more are not customer IDs');
  });
});

describe('linkFormView', () => {
  it('gives every input a label and a hint', () => {
    const inputs = linkFormView().blocks.filter((b): b is InputBlock => b.type === 'input');
    expect(inputs).toHaveLength(9);
    for (const input of inputs)
      expect([input.block_id, input.label.text, input.hint?.text]).toEqual([
        input.block_id,
        expect.any(String),
        expect.any(String),
      ]);
  });

  it('is a valid modal, empty or filled with a problem banner', () => {
    expect(viewProblems(linkFormView())).toEqual([]);
    const filled = linkFormView(
      {
        nftId: 'n'.repeat(200),
        email: 'a@b.co',
        customerIdsText: 'c '.repeat(1500),
        maxQuantity: '2',
        claimStart: now,
        claimEnd: now,
        active: false,
        walletOptions: 'CUSTODIAL',
        type: 'GENERAL',
      },
      'x'.repeat(5000),
    );
    expect(viewProblems(filled)).toEqual([]);
    expect(JSON.stringify(filled)).not.toContain('initial_options');
  });
});

describe('checkLinkForm and readLinkForm with forged values (what the form itself cannot send)', () => {
  const field = (value: Record<string, unknown>) => ({ value: { type: 'x', ...value } });

  it('refuses a date no picker sends, a quantity not in plain digits and an over-long ID box, each on its block', () => {
    const values = readLinkForm({
      [LINK_BLOCKS.nftId]: field({ value: 'nft-1' }),
      [LINK_BLOCKS.wallet]: field({ selected_option: { value: 'CUSTODIAL' } }),
      [LINK_BLOCKS.claimStart]: field({ selected_date_time: 1e13 }),
      [LINK_BLOCKS.claimEnd]: field({ selected_date_time: 1.5 }),
      [LINK_BLOCKS.maxQuantity]: field({ value: '1e3' }),
      [LINK_BLOCKS.customerIds]: field({ value: 'c'.repeat(3001) }),
    });
    expect(Object.keys(errorsOf(values)).sort()).toEqual(
      [LINK_BLOCKS.claimEnd, LINK_BLOCKS.claimStart, LINK_BLOCKS.customerIds, LINK_BLOCKS.maxQuantity].sort(),
    );
  });

  it('reads a value that is not a string as empty instead of failing', () => {
    const values = readLinkForm({ [LINK_BLOCKS.nftId]: field({ value: { toString: 1 } }) });
    expect(errorsOf({ ...values, walletOptions: 'CUSTODIAL' })).toEqual({
      [LINK_BLOCKS.nftId]: 'Enter the ID of the NFT to mint.',
    });
  });
});
