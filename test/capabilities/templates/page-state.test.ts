import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contractIdSchema } from '../../../src/platform/mint/schemas.js';
import { decodePageState, encodePageState } from '../../../src/capabilities/templates/page-state.js';
import { expectWithinSpec } from './within-spec.js';

describe('page state in button values', () => {
  it('round-trips, and stays far below the 2000-character button value limit', () => {
    const state = { contractId: 'c'.repeat(200), offset: 120, limit: 50, order: 'asc' as const };
    expect(decodePageState(encodePageState(state))).toEqual(state);
    expect(encodePageState(state).length).toBeLessThan(300);
  });

  it.each([
    ['not JSON', 'next'],
    ['a limit out of range', '{"c":"x","o":0,"l":500,"d":"asc"}'],
    ['a negative offset', '{"c":"x","o":-10,"l":10,"d":"asc"}'],
    ['an unknown order', '{"c":"x","o":0,"l":10,"d":"random"}'],
    ['a contract id with a space', '{"c":"a b","o":0,"l":10,"d":"asc"}'],
    ['nothing', undefined],
    ['a value longer than a button holds', `{"c":"${'x'.repeat(2000)}","o":0,"l":10,"d":"asc"}`],
  ])('refuses %s', (_name, value) => {
    expect(decodePageState(value)).toBeUndefined();
  });
});

const contractId = fc
  .oneof(
    fc.stringMatching(/^[A-Za-z0-9_.:-]{1,200}$/),
    fc.string({ minLength: 1, maxLength: 200, unit: 'binary' }),
    fc.string({ minLength: 1, maxLength: 200, unit: fc.constantFrom('"', '\\', '\ud800', '😀', 'é', '<', '&') }),
  )
  .filter((c) => contractIdSchema.safeParse(c).success);
const validState = fc.record({
  contractId,
  offset: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  limit: fc.integer({ min: 1, max: 50 }),
  order: fc.constantFrom('asc' as const, 'desc' as const),
});

describe('page state, property-based', () => {
  it('round-trips every valid state, in a value within the 2000 characters of a button', () => {
    fc.assert(
      fc.property(validState, (state) => {
        const value = encodePageState(state);
        expect(value.length).toBeLessThanOrEqual(2000);
        expect(decodePageState(value)).toEqual(state);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes any string to undefined or to a state the Mint request schema accepts', () => {
    const forged = fc.oneof(
      fc.string({ maxLength: 2500, unit: 'binary' }),
      fc.json(),
      fc
        .record({
          c: fc.oneof(fc.string({ maxLength: 250 }), fc.integer(), fc.constant(null)),
          o: fc.oneof(fc.double(), fc.integer(), fc.string({ maxLength: 5 }), fc.constant(2 ** 60)),
          l: fc.oneof(fc.double(), fc.integer({ min: -5, max: 60 }), fc.string({ maxLength: 3 })),
          d: fc.oneof(fc.constantFrom('asc', 'desc', 'ASC', 'random'), fc.string({ maxLength: 5 })),
        })
        .map((raw) => JSON.stringify(raw)),
    );
    fc.assert(
      fc.property(forged, (value) => {
        const state = decodePageState(value);
        if (state === undefined) return;
        expectWithinSpec(state);
        expect(Number.isSafeInteger(state.offset)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
