import { describe, expect, it } from 'vitest';
import { UNKNOWN_ZONE, dayEnd, dayStart, zoneOf } from '../../../src/capabilities/history/reader-zone.js';

/* A reader's day as instants: its local midnight to the next, across a change of offset, or by offset alone. */
describe('reader zone', () => {
  it('starts and ends a day at the zone’s own midnights, also on the night its clocks change', () => {
    const tokyo = zoneOf('Asia/Tokyo', 32_400);
    expect(dayStart('2024-03-05', tokyo).toISOString()).toBe('2024-03-04T15:00:00.000Z');
    expect(dayEnd('2024-03-05', tokyo).toISOString()).toBe('2024-03-05T15:00:00.000Z');
    // Paris moves from UTC+1 to UTC+2 at 02:00 on 31 March 2024: that day is 23 hours long.
    const paris = zoneOf('Europe/Paris', 3_600);
    expect(dayStart('2024-03-31', paris).toISOString()).toBe('2024-03-30T23:00:00.000Z');
    expect(dayEnd('2024-03-31', paris).toISOString()).toBe('2024-03-31T22:00:00.000Z');
    expect(dayStart('2024-11-03', zoneOf('America/New_York', -18_000)).toISOString()).toBe('2024-11-03T04:00:00.000Z');
  });

  it('falls back to the offset Slack gave, then to UTC, and says which', () => {
    const byOffset = zoneOf('Nowhere/Unknown', 19_800);
    expect(byOffset).toEqual({ known: true, name: 'UTC+05:30', offsetSeconds: 19_800 });
    expect(dayStart('2024-03-05', byOffset).toISOString()).toBe('2024-03-04T18:30:00.000Z');
    expect(zoneOf(undefined, undefined)).toEqual(UNKNOWN_ZONE);
    expect(dayStart('2024-03-05', UNKNOWN_ZONE).toISOString()).toBe('2024-03-05T00:00:00.000Z');
  });
});
