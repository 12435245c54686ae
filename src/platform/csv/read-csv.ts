import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';

/**
 * One data row: its number as a spreadsheet shows it (the header is row 1; blank lines and rows of bare
 * commas count, as a spreadsheet shows them as empty rows; a quoted cell with line breaks is one row), and
 * its cells as written.
 */
export interface CsvRecord {
  rowNumber: number;
  cells: string[];
}

export interface CsvLimits {
  /** Rows with data a table may have; more are counted (to say how many) but not handed on. */
  maxRecords: number;
  /** What a table may take once read, counted as TABLE_COSTS says: rows x cells x bytes, not the file's size. */
  maxTableBytes: number;
}

/**
 * What one row of a table costs once read, in bytes: each row, and each cell of it plus 2 bytes a character
 * (how JavaScript holds text at worst). A file's size alone says little: 2 MB of one-character cells is
 * 700,000 strings, many times the memory of 2 MB of long cells.
 */
export const TABLE_COSTS = { row: 64, cell: 32, character: 2 } as const;

/** A problem with the whole table (not CSV, too many rows, too big), in one sentence for whoever sent it. */
export class CsvTableProblem extends Error {
  override readonly name = 'CsvTableProblem';
}

export type CsvTable =
  | {
      ok: true;
      header: string[];
      /**
       * The rows under the header, read as they are asked for: once, by one reader. It throws a
       * CsvTableProblem when the table cannot be used, perhaps after many rows (too many of them, or a
       * broken quote near the end): a reader relies on none of them until the last has come.
       */
      records: AsyncIterable<CsvRecord>;
      /** Stops reading, when the rows are not wanted after all. */
      close(): void;
    }
  | { ok: false; problem: string };

/** Bytes handed to the parser at a time, with a turn of the event loop between them. */
const PIECE_BYTES = 64 * 1024;

type ParsedRecord = { record: string[]; raw: string };

/**
 * Reads CSV (UTF-8 bytes; comma-separated, quotes as RFC 4180, an optional BOM, cells trimmed; blank lines
 * and rows of bare commas skipped but counted, while `""` is a row with an empty cell) as a stream: the
 * header (the first row that is not blank) at once, then the rows one at a time as the reader asks, so
 * that a table is never held whole. Within `limits`: more than `maxRecords` rows, or more than
 * `maxTableBytes` of table (see TABLE_COSTS), and it is refused, the latter as soon as it is passed. Rows
 * with fewer or more cells than the header are handed on as they are: the caller reports them row by row.
 * The parsing is csv-parse's, fed in pieces so that a large file does not hold the event loop (and
 * Slack's acknowledgements) for its whole length.
 */
export async function readCsv(bytes: Buffer, limits: CsvLimits): Promise<CsvTable> {
  // Empty lines are kept by the parser (and skipped below) so that every row is counted where it stands:
  // csv-parse's skip_empty_lines would drop them before the count.
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: false, trim: true, raw: true });
  const pieces = (function* () {
    for (let at = 0; at < bytes.length; at += PIECE_BYTES) yield bytes.subarray(at, at + PIECE_BYTES);
  })();
  Readable.from(pieces).pipe(parser);
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- csv-parse types its iterator and its error loosely: these are the shapes it documents
  const parsed = parser[Symbol.asyncIterator]() as AsyncIterator<ParsedRecord>;
  const close = () => void parser.destroy();
  let rowNumber = 0;

  /** The next row that is not blank, with its number; undefined at the end of the text. */
  const nextRow = async (): Promise<string[] | undefined> => {
    for (;;) {
      let next: IteratorResult<ParsedRecord>;
      try {
        next = await parsed.next();
      } catch (error) {
        throw error instanceof CsvError ? new CsvTableProblem(notCsv(error)) : error;
      }
      if (next.done) return undefined;
      rowNumber += 1;
      // A blank line, or a row of bare separators (",,,") that spreadsheets leave behind, is no row; a quoted
      // empty cell ("") is data.
      if (!/^[\s,]*$/.test(next.value.raw)) return next.value.record;
    }
  };

  let header: string[] | undefined;
  try {
    header = await nextRow();
  } catch (error) {
    close();
    if (error instanceof CsvTableProblem) return { ok: false, problem: error.message };
    throw error;
  }
  if (!header || header.every((name) => name === '')) {
    close();
    return { ok: false, problem: 'It is empty.' };
  }

  async function* records(): AsyncGenerator<CsvRecord> {
    let count = 0;
    let tableBytes = 0;
    try {
      for (let cells = await nextRow(); cells; cells = await nextRow()) {
        count += 1;
        if (count > limits.maxRecords) continue; // counted, to say how many, but not kept
        tableBytes += TABLE_COSTS.row;
        for (const cell of cells) tableBytes += TABLE_COSTS.cell + TABLE_COSTS.character * cell.length;
        if (tableBytes > limits.maxTableBytes) throw new CsvTableProblem(tooBig(limits, rowNumber, cells.length));
        yield { rowNumber, cells };
      }
    } finally {
      close(); // at the end, on a problem, or when the reader stops early
    }
    if (count === 0) throw new CsvTableProblem('It has a header row but no rows under it.');
    if (count > limits.maxRecords) {
      throw new CsvTableProblem(
        `It has ${count.toLocaleString('en-US')} rows; a job takes at most ${limits.maxRecords.toLocaleString('en-US')}. Split it into smaller files.`,
      );
    }
  }
  return { ok: true, header, records: records(), close };
}

function notCsv(error: CsvError): string {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- csv-parse types its iterator and its error loosely: these are the shapes it documents
  const { lines } = error as CsvError & { lines?: number };
  return `It cannot be read as CSV${lines ? ` (near line ${lines})` : ''}: ${error.message}`;
}

function tooBig(limits: CsvLimits, rowNumber: number, cells: number): string {
  const { row, cell, character } = TABLE_COSTS;
  return (
    `It is too big to check: a check reads at most ${sizeText(limits.maxTableBytes)} of table (${row} bytes a row, ${cell} a value ` +
    `and ${character} a character), and this file passes that at row ${rowNumber.toLocaleString('en-US')}, ` +
    `which has ${cells.toLocaleString('en-US')} value${cells === 1 ? '' : 's'}. Keep each row to the header's ` +
    'columns, or split it into smaller files.'
  );
}

function sizeText(bytes: number): string {
  const megabytes = bytes / (1024 * 1024);
  return megabytes >= 1 ? `${Math.round(megabytes)} MB` : `${Math.round(bytes / 1024)} KB`;
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
