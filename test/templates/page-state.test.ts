import { describe, expect, it } from 'vitest';
import { decodePageState, encodePageState } from '../../src/templates/page-state.js';

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
  ])('refuses %s', (_name, value) => {
    expect(decodePageState(value)).toBeUndefined();
  });
});
