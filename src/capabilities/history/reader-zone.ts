import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { withDeadline } from '../../platform/ops/lifecycle/with-deadline.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';

/**
 * The time zone a reader's days are in (History's From / To), as Slack's users.info gives it: `tz` (an IANA
 * name), else `tz_offset` (seconds east of UTC); UTC when Slack did not say, and then the form says so.
 */
export type ReaderZone =
  | { known: true; name: string; tz: string }
  | { known: true; name: string; offsetSeconds: number }
  | { known: false; name: 'UTC' };

/** UTC, when Slack did not say the reader's zone. */
export const UNKNOWN_ZONE: ReaderZone = { known: false, name: 'UTC' };

/** How long the page waits for users.info: it is read before the page's first answer to Slack (3 s). */
const DEADLINE_MS = 1_000;
/** A zone kept this long (people travel, and change their zone in Slack's preferences). */
const KEPT_MS = 3_600_000;
/** A users.info that failed is asked again only after this: a page meanwhile uses UTC and says so. */
const FAILED_KEPT_MS = 60_000;
const DAY_MS = 86_400_000;

/** Readers' zones, read from Slack once an hour each (an LRU of a few thousand). */
export class ReaderZones {
  /** Made at the first page read: an LRU with a ttl allocates all its places at once. */
  private zonesKept: LRUCache<string, ReaderZone, WebClient> | undefined;

  constructor(private readonly logger: Logger) {}

  private get zones(): LRUCache<string, ReaderZone, WebClient> {
    return (this.zonesKept ??= new LRUCache<string, ReaderZone, WebClient>({
      max: 5_000,
      ttl: KEPT_MS,
      fetchMethod: async (key, _stale, { context, options }) => {
        const userId = key.split(' ')[1] ?? '';
        try {
          const { user } = await context.users.info({ user: userId });
          return zoneOf(user?.tz, user?.tz_offset);
        } catch (error) {
          this.logger.warn({ err: error, user: userId }, 'could not read a user’s time zone from Slack: UTC days');
          options.ttl = FAILED_KEPT_MS;
          return UNKNOWN_ZONE;
        }
      },
    }));
  }

  /** The zone of `userId` of workspace `teamId`, asked with the workspace's client; UTC if Slack is slow. */
  async of(client: WebClient, teamId: string, userId: string): Promise<ReaderZone> {
    const load = this.zones.fetch(`${teamId} ${userId}`, { context: client });
    load.catch(() => undefined); // a late answer after the deadline is kept for the next page
    try {
      return (await withDeadline(load, DEADLINE_MS)) ?? UNKNOWN_ZONE;
    } catch {
      return UNKNOWN_ZONE;
    }
  }
}

/** A zone from users.info's fields: the IANA name if this runtime knows it, else the offset, else unknown. */
export function zoneOf(tz: string | undefined, tzOffset: number | undefined): ReaderZone {
  if (tz) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return { known: true, name: tz, tz };
    } catch {
      // A name this runtime's time-zone data does not have: the offset Slack gave is the next best.
    }
  }
  if (typeof tzOffset === 'number' && Number.isFinite(tzOffset) && Math.abs(tzOffset) <= 14 * 3_600)
    return { known: true, name: offsetName(tzOffset), offsetSeconds: tzOffset };
  return UNKNOWN_ZONE;
}

/** The instant day `day` (YYYY-MM-DD) starts in `zone`: its local midnight. */
export function dayStart(day: string, zone: ReaderZone): Date {
  const midnight = Date.parse(`${day}T00:00:00.000Z`);
  if (!zone.known) return new Date(midnight);
  if ('offsetSeconds' in zone) return new Date(midnight - zone.offsetSeconds * 1000);
  // The offset at a first guess, then at the instant it gives (a change of offset that night moves it).
  const guess = midnight - offsetAt(zone.tz, midnight);
  return new Date(midnight - offsetAt(zone.tz, guess));
}

/** The instant the day after `day` starts in `zone` (a To day is included up to there). */
export function dayEnd(day: string, zone: ReaderZone): Date {
  const next = new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString().slice(0, 10);
  return dayStart(next, zone);
}

/** How far ahead of UTC zone `tz`'s clocks are at instant `at`, in ms. */
function offsetAt(tz: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(at));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return local - Math.floor(at / 1000) * 1000;
}

/** `UTC+09:00`, `UTC-03:30`. */
function offsetName(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const minutes = Math.abs(Math.round(seconds / 60));
  return `UTC${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
