import { setImmediate as nextTurn } from 'node:timers/promises';
import { matchHeader, readCsv } from '../csv/read-csv.js';
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
import { MAX_ROWS } from './bulk-form.js';

export type JobTable = { ok: true; columns: string[]; rows: NewBulkRow[] } | { ok: false; problem: string };

/** Rows checked between two turns of the event loop: a 5,000-row table must not hold Slack's acks. */
const ROWS_PER_TURN = 250;

/**
 * A CSV's rows as the rows of a job: each checked with the shared request schema (links start from the
 * defaults), valid ones with the request to send, the others with every problem, by column as written.
 * A problem with the whole table (not CSV, unknown columns, too many rows) comes back alone.
 */
export async function readJobTable(text: string, kind: BulkKind, defaults: LinkDefaults, now: Date): Promise<JobTable> {
  if (text.includes('\u0000')) return { ok: false, problem: 'It is not a text file.' };
  if (text.includes('\uFFFD')) return { ok: false, problem: 'It is not UTF-8 text (save it as "CSV UTF-8").' };
  const table = await readCsv(text, { maxRecords: MAX_ROWS });
  if (!table.ok) return table;
  const known = kind === 'links' ? LINK_COLUMNS : WALLET_COLUMNS;
  const header = matchHeader<string>(table.header, known);
  if (!header.ok) return header;
  const written = new Map(header.columns.map((column, i) => [column, table.header[i]?.trim() ?? column]));

  const rows: NewBulkRow[] = [];
  for (const [index, record] of table.records.entries()) {
    if (index > 0 && index % ROWS_PER_TURN === 0) await nextTurn();
    const { rowNumber, cells } = record;
    if (cells.length !== header.columns.length) {
      const error = `has ${cells.length} value${cells.length === 1 ? '' : 's'} where the header has ${header.columns.length} columns`;
      rows.push({ rowNumber, cells, error });
      continue;
    }
    const byColumn = Object.fromEntries(header.columns.map((column, i) => [column, cells[i]]));
    const checked: RowRequest<unknown, string> =
      kind === 'links' ? linkRowRequest(byColumn, defaults, now) : walletRowRequest(byColumn);
    rows.push(
      checked.ok
        ? { rowNumber, cells, request: checked.request }
        : { rowNumber, cells, error: describeProblems(checked.problems, written) },
    );
  }
  return { ok: true, columns: table.header.map((name) => name.trim()), rows };
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
