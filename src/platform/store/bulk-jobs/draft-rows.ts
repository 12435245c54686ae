import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip } from 'node:zlib';

/** A row of a job as checked, before it is stored. */
export interface NewBulkRow {
  rowNumber: number;
  cells: string[];
  /** The request to send; absent for an invalid row. */
  request?: unknown;
  /** What is wrong with it: the row is invalid and is never sent. */
  error?: string;
  /**
   * Held back: written out at Start only if the person chooses it (a retry's row whose outcome was unknown:
   * it may have been created already). Not counted in the draft's total and valid rows.
   */
  held?: true;
}

/**
 * A row as packed: its number, its cells, its request (null when invalid), its problem (null when valid), and
 * 1 when it is held back (see NewBulkRow.held).
 */
type PackedRow = [number, string[], unknown, string | null] | [number, string[], unknown, string | null, 1];

export interface PackedRows {
  /** The rows as gzip-compressed JSON lines, one row each, in base64 (a text column on both engines). */
  data: string;
  /** Rows not held back, and the valid ones among them. */
  total: number;
  valid: number;
  /** Rows held back (see NewBulkRow.held). */
  held: number;
}

/**
 * Packs a draft's rows as they come (never all of them at once in memory), compressed: the rows of a CSV
 * repeat themselves (the same defaults in every request, the same problem on every row), and a draft waits
 * for Start as one small value instead of thousands of rows and their index entries. `scrub` is applied to
 * each row's text, as the database's scrubber is to every value written (it cannot see inside the packing).
 */
export async function packRows(
  rows: Iterable<NewBulkRow> | AsyncIterable<NewBulkRow>,
  scrub: (text: string) => string = (text) => text,
): Promise<PackedRows> {
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = once(gzip, 'end');
  let total = 0;
  let valid = 0;
  let held = 0;
  try {
    for await (const row of rows) {
      const packed: PackedRow =
        row.error === undefined
          ? [row.rowNumber, row.cells, row.request ?? {}, null]
          : [row.rowNumber, row.cells, null, row.error];
      if (row.held) {
        packed.push(1);
        held += 1;
      } else {
        total += 1;
        if (row.error === undefined) valid += 1;
      }
      if (!gzip.write(`${scrub(JSON.stringify(packed))}\n`)) await once(gzip, 'drain');
    }
  } catch (error) {
    gzip.destroy();
    throw error;
  }
  gzip.end();
  await ended;
  return { data: Buffer.concat(chunks).toString('base64'), total, valid, held };
}

/** The rows `packRows` packed, in their order, unpacked one at a time. */
export async function* unpackRows(data: string): AsyncGenerator<NewBulkRow> {
  const gunzip = createGunzip();
  gunzip.end(Buffer.from(data, 'base64'));
  const decoder = new StringDecoder('utf8');
  let partial = '';
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- read back as this repository wrote it (packed by itself, in the same column)
  for await (const chunk of gunzip as AsyncIterable<Buffer>) {
    const lines = (partial + decoder.write(chunk)).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line) yield unpack(line);
  }
  partial += decoder.end();
  if (partial) yield unpack(partial);
}

function unpack(line: string): NewBulkRow {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- read back as this repository wrote it (packed by itself, in the same column)
  const [rowNumber, cells, request, error, held] = JSON.parse(line) as PackedRow;
  const row: NewBulkRow = error === null ? { rowNumber, cells, request } : { rowNumber, cells, error };
  if (held === 1) row.held = true;
  return row;
}
