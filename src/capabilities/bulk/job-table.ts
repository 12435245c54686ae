import { isUtf8 } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { matchHeader, readCsv, type CsvRecord } from '../../platform/csv/read-csv.js';
import {
  LINK_COLUMNS,
  WALLET_COLUMNS,
  linkRowRequest,
  walletRowRequest,
  type CellProblem,
  type LinkDefaults,
  type RowRequest,
} from '../../platform/mint/row-requests.js';
import type { BulkKind, NewBulkRow } from '../../platform/store/bulk-jobs/jobs.js';
import { MAX_ROWS, MAX_TABLE_BYTES } from './bulk-form.js';

/**
 * A CSV read as a job's rows: the header at once, then the rows checked one by one as they are asked for
 * (`rows` throws a CsvTableProblem when the table turns out unusable part-way: see readCsv).
 */
export type JobTable =
  { ok: true; columns: string[]; rows: AsyncIterable<NewBulkRow> } | { ok: false; problem: string };

/** Rows checked between two turns of the event loop: a 5,000-row table must not hold Slack's acks. */
const ROWS_PER_TURN = 250;

/**
 * A CSV's rows as the rows of a job: each checked with the shared request schema (links start from the
 * defaults), valid ones with the request to send, the others with every problem, by column as written.
 * A problem with the whole table (not text, not CSV, unknown columns, too many rows, too big) comes back
 * alone: at once when the start of the file shows it, else from `rows`.
 */
export async function readJobTable(
  bytes: Buffer,
  kind: BulkKind,
  defaults: LinkDefaults,
  now: Date,
): Promise<JobTable> {
  if (bytes.includes(0)) return { ok: false, problem: 'It is not a text file.' };
  if (!isUtf8(bytes)) return { ok: false, problem: 'It is not UTF-8 text (save it as "CSV UTF-8").' };
  const table = await readCsv(bytes, { maxRecords: MAX_ROWS, maxTableBytes: MAX_TABLE_BYTES });
  if (!table.ok) return table;
  const checker = rowChecker(table.header, kind, defaults, now);
  if (!checker.ok) {
    table.close();
    return checker;
  }
  const { check } = checker;
  const records = table.records;
  async function* rows(): AsyncGenerator<NewBulkRow> {
    let index = 0;
    for await (const record of records) {
      if (index > 0 && index % ROWS_PER_TURN === 0) await nextTurn();
      index += 1;
      yield check(record);
    }
  }
  return { ok: true, columns: table.header.map((name) => name.trim()), rows: rows() };
}

/** Checks a row of a table whose header is `header`; a header that does not fit the kind is a problem. */
export type RowChecker = { ok: true; check: (record: CsvRecord) => NewBulkRow } | { ok: false; problem: string };

/**
 * How the rows of a table with this header are checked: each with the shared request schema (links start
 * from the defaults), a valid one with the request to send, another with every problem, by column as written.
 * The same for a file being checked and for the failed rows of a job being retried.
 */
export function rowChecker(header: readonly string[], kind: BulkKind, defaults: LinkDefaults, now: Date): RowChecker {
  const known = kind === 'links' ? LINK_COLUMNS : WALLET_COLUMNS;
  const matched = matchHeader<string>(header, known);
  if (!matched.ok) return matched;
  const columns = matched.columns;
  const written = new Map(columns.map((column, i) => [column, header[i]?.trim() ?? column]));
  const check = (record: CsvRecord): NewBulkRow => {
    const { rowNumber, cells } = record;
    if (cells.length !== columns.length) {
      const error = `has ${cells.length} value${cells.length === 1 ? '' : 's'} where the header has ${columns.length} columns`;
      return { rowNumber, cells, error };
    }
    const byColumn = Object.fromEntries(columns.map((column, i) => [column, cells[i]]));
    const checked: RowRequest<unknown, string> =
      kind === 'links' ? linkRowRequest(byColumn, defaults, now) : walletRowRequest(byColumn);
    return checked.ok
      ? { rowNumber, cells, request: checked.request }
      : { rowNumber, cells, error: describeProblems(checked.problems, written) };
  };
  return { ok: true, check };
}

/** The row's problems in the order of its columns, each under the column's name as written. */
function describeProblems(problems: CellProblem<string>[], written: Map<string, string>): string {
  const order = [...written.keys()];
  const position = (column: string) => (order.includes(column) ? order.indexOf(column) : order.length);
  return [...problems]
    .sort((a, b) => position(a.column) - position(b.column))
    .map((p) => `${written.get(p.column) ?? p.column}: ${p.message}`)
    .join('; ');
}
