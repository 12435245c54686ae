import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';

export interface CsvFile {
  path: string;
  /** Its size in bytes. */
  size: number;
  /** Removes the file (and its directory). */
  remove(): Promise<void>;
}

/**
 * Writes a CSV file in a temporary directory of its own, row by row as `rows` yields them (a large table is
 * never held in memory whole), through csv-stringify. Cells are made safe for spreadsheets (see safeCell).
 */
export async function writeCsvFile(
  header: readonly string[],
  rows: AsyncIterable<readonly string[]> | Iterable<readonly string[]>,
): Promise<CsvFile> {
  const dir = await mkdtemp(join(tmpdir(), 'mintlink-csv-'));
  const path = join(dir, `${randomUUID()}.csv`);
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const lines = Readable.from(
      (async function* () {
        yield header.map((cell) => safeCell(cell));
        for await (const row of rows) yield row.map((cell) => safeCell(cell));
      })(),
    );
    await pipeline(lines, stringify({ eof: true }), createWriteStream(path));
    return { path, size: (await stat(path)).size, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * A cell a spreadsheet may run: a tab or a carriage return first, or, after any run of characters a reader
 * does not see as the cell's start, a formula's first character: `=`, `+`, `-`, `@`, or a look-alike of one
 * (fullwidth ＝ ＋ － ＠, small ﹦ ﹢ ﹣ ﹫, the minus sign −), which a person or a spreadsheet may take for the
 * ASCII one. The run is judged by Unicode class, not by a list, so no character of a class slips through:
 * controls (Cc: NUL, line breaks, NEL U+0085...), format characters (Cf: zero-width joiners, BOM, direction
 * marks, isolates, tags...), combining marks (Mn, Me: a mark put before `=` combines with nothing), separators
 * (Z: every Unicode space, line and paragraph separator), whitespace, and what else takes no room (Unicode's
 * Default_Ignorable_Code_Point: variation selectors, Hangul fillers, U+180E...). A formula behind such a run
 * still runs in some spreadsheets, and a reader cannot see the run.
 */
const UNSAFE_START =
  /^(?:[\t\r]|[\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Z}\s\p{Default_Ignorable_Code_Point}\u180E]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B\u2212])/u;

/**
 * A cell a spreadsheet would run as a formula (see UNSAFE_START) gets a leading apostrophe, so opening the
 * file runs nothing: the cells carry what users and the Mint service wrote. Every such cell, signed numbers
 * too (OWASP's advice on CSV injection: telling a harmless `-5` from `-5+cmd|...` is where such filters go
 * wrong). Every CSV the app writes (bulk results and errors, the audit export) goes through this one rule.
 */
export function safeCell(value: string): string {
  return UNSAFE_START.test(value) ? `'${value}` : value;
}
