import { Readable } from 'node:stream';
import { parse, type CsvError } from 'csv-parse';

/**
 * One data row: its number as a spreadsheet shows it (the header is row 1; blank lines and rows of bare
 * commas count, as a spreadsheet shows them as empty rows; a quoted cell with line breaks is one row), and
 * its cells as written.
 */
export interface CsvRecord {
  rowNumber: number;
  cells: string[];
}

export type CsvReadResult = { ok: true; header: string[]; records: CsvRecord[] } | { ok: false; problem: string };

/** Text is handed to the parser in pieces of this size, with a turn of the event loop between them. */
const PIECE_CHARS = 64 * 1024;

/**
 * Reads CSV text (comma-separated, quotes as RFC 4180, an optional BOM, cells trimmed; blank lines and rows
 * of bare commas skipped but counted, while `""` is a row with an empty cell) into its header (the first row
 * that is not blank) and rows. A file that cannot be read as CSV, has no header, no rows, or more than
 * `maxRecords` rows gets one sentence saying so. Rows with fewer or more cells than the header are kept as
 * they are: the caller reports them row by row. The parsing is csv-parse's; it is fed in pieces so that a
 * large file does not hold the event loop (and Slack's acknowledgements) for its whole length.
 */
export async function readCsv(text: string, options: { maxRecords: number }): Promise<CsvReadResult> {
  // Empty lines are kept by the parser (and skipped below) so that every row is counted where it stands:
  // csv-parse's skip_empty_lines would drop them before the count.
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: false, trim: true, raw: true });
  const pieces = (function* () {
    for (let at = 0; at < text.length; at += PIECE_CHARS) yield text.slice(at, at + PIECE_CHARS);
  })();
  Readable.from(pieces).pipe(parser);
  let header: string[] | undefined;
  const records: CsvRecord[] = [];
  let rowNumber = 0;
  let count = 0;
  try {
    for await (const { record: cells, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      rowNumber += 1;
      // A blank line, or a row of bare separators (",,,") that spreadsheets leave behind, is no row; a quoted
      // empty cell ("") is data.
      if (/^[\s,]*$/.test(raw)) continue;
      if (!header) {
        header = cells;
        continue;
      }
      count += 1;
      if (count <= options.maxRecords) records.push({ rowNumber, cells });
    }
  } catch (error) {
    const { message, lines } = error as CsvError & { lines?: number };
    return { ok: false, problem: `It cannot be read as CSV${lines ? ` (near line ${lines})` : ''}: ${message}` };
  }
  if (!header || header.every((name) => name === '')) return { ok: false, problem: 'It is empty.' };
  if (count === 0) return { ok: false, problem: 'It has a header row but no rows under it.' };
  if (count > options.maxRecords) {
    return {
      ok: false,
      problem: `It has ${count.toLocaleString('en-US')} rows; a job takes at most ${options.maxRecords.toLocaleString('en-US')}. Split it into smaller files.`,
    };
  }
  return { ok: true, header, records };
}

export type HeaderMatch<C extends string> = { ok: true; columns: C[] } | { ok: false; problem: string };

/**
 * The known column each header cell names, matched without regard to case (and surrounding spaces). An
 * unknown, empty or repeated name is a problem: a misspelt column would otherwise be dropped unnoticed.
 */
export function matchHeader<C extends string>(header: readonly string[], known: readonly C[]): HeaderMatch<C> {
  const byLower = new Map(known.map((name) => [name.toLowerCase(), name]));
  const columns: C[] = [];
  const unknown: string[] = [];
  const repeated = new Set<C>();
  const problems: string[] = [];
  header.forEach((raw, index) => {
    const name = raw.trim();
    if (!name) return problems.push(`column ${index + 1} has no name`);
    const column = byLower.get(name.toLowerCase());
    if (!column) return unknown.push(name);
    if (columns.includes(column)) repeated.add(column);
    columns.push(column);
  });
  if (unknown.length > 0) {
    const names = unknown.map((n) => `"${n.length > 40 ? `${n.slice(0, 39)}…` : n}"`).join(', ');
    problems.push(
      `${unknown.length === 1 ? 'the column' : 'the columns'} ${names} ${unknown.length === 1 ? 'is' : 'are'} not known`,
    );
  }
  if (repeated.size > 0) problems.push(`${[...repeated].map((c) => `"${c}"`).join(', ')} appear more than once`);
  if (problems.length > 0) {
    return {
      ok: false,
      problem: `The header row is not right: ${problems.join('; ')}. The columns are ${known.map((c) => `"${c}"`).join(', ')} (any case, any order).`,
    };
  }
  return { ok: true, columns };
}
