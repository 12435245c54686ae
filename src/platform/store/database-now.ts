import { sql, type RawBuilder } from 'kysely';

/**
 * The database's clock, `offsetMs` from now, as the text the tables' time columns hold (ISO 8601 in UTC with
 * milliseconds, as `Date.toISOString()` writes it, so that the two compare as text). For a time that
 * processes on different hosts compare with each other: their own clocks may disagree by seconds, the
 * database's is one. (SQLite runs inside each process, but every process using the file is on its host.)
 */
export function databaseNow(engine: 'sqlite' | 'postgres', offsetMs = 0): RawBuilder<string> {
  if (engine === 'sqlite') return sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`${offsetMs / 1000} seconds`})`;
  return sql<string>`to_char((clock_timestamp() + ${offsetMs}::float8 * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
