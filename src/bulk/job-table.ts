import { isUtf8 } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { matchHeader, readCsv, type CsvRecord } from '../csv/read-csv.js';
import {
  LINK_COLUMNS,
  WALLET_COLUMNS,
  linkRowRequest,
  walletRowRequest,
  type CellProblem,
  type LinkDefaults,
  type RowRequest,
} from '../mint-api/row-requests.js';
import type { BulkKind, NewBulkRow } from '../store/bulk-jobs.js';
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
  const known = kind === 'links' ? LINK_COLUMNS : WALLET_COLUMNS;
  const header = matchHeader<string>(table.header, known);
  if (!header.ok) {
    table.close();
    return header;
  }
  const records = table.records;
  const written = new Map(header.columns.map((column, i) => [column, table.header[i]?.trim() ?? column]));
  const check = (record: CsvRecord): NewBulkRow => {
    const { rowNumber, cells } = record;
    if (cells.length !== header.columns.length) {
      const error = `has ${cells.length} value${cells.length === 1 ? '' : 's'} where the header has ${header.columns.length} columns`;
      return { rowNumber, cells, error };
    }
    const byColumn = Object.fromEntries(header.columns.map((column, i) => [column, cells[i]]));
    const checked: RowRequest<unknown, string> =
      kind === 'links' ? linkRowRequest(byColumn, defaults, now) : walletRowRequest(byColumn);
    return checked.ok
      ? { rowNumber, cells, request: checked.request }
      : { rowNumber, cells, error: describeProblems(checked.problems, written) };
  };
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

/** The row's problems in the order of its columns, each under the column's name as written. */
function describeProblems(problems: CellProblem<string>[], written: Map<string, string>): string {
  const order = [...written.keys()];
  const position = (column: string) => (order.includes(column) ? order.indexOf(column) : order.length);
  return [...problems]
    .sort((a, b) => position(a.column) - position(b.column))
    .map((p) => `${written.get(p.column) ?? p.column}: ${p.message}`)
    .join('; ');
}
