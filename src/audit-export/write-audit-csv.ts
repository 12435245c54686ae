import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { AuditPeriod } from '../store/audit-history.js';
import type { Approval } from '../store/deletion-approvals.js';
import type { Store } from '../store/store.js';
import { AUDIT_CSV_COLUMNS, auditRecord, requestIdOf } from './audit-csv.js';

/**
 * Writes the period's audit entries to a CSV file, oldest first, and returns how many there were. The rows
 * flow from the database a page at a time (with the approvals of the page's deletion requests) through
 * csv-stringify into the file, with back-pressure all the way: memory holds one page whatever the size of
 * the export. The file is readable by the app's user only (it holds the team's actions).
 */
export async function writeAuditCsv(
  store: Pick<Store, 'auditHistory' | 'deletionApprovals'>,
  period: AuditPeriod,
  path: string,
): Promise<number> {
  const counted = { rows: 0 };
  await pipeline(
    Readable.from(records(store, period, counted)),
    stringify({ eof: true }),
    createWriteStream(path, { mode: 0o600 }),
  );
  return counted.rows;
}

async function* records(
  store: Pick<Store, 'auditHistory' | 'deletionApprovals'>,
  period: AuditPeriod,
  counted: { rows: number },
): AsyncGenerator<string[]> {
  yield [...AUDIT_CSV_COLUMNS];
  for await (const page of store.auditHistory.pages(period)) {
    const requestIds = page.map(requestIdOf).filter((id): id is string => id !== undefined);
    const approvals = new Map<string, Approval[]>();
    for (const approval of await store.deletionApprovals.of(requestIds)) {
      const list = approvals.get(approval.requestId) ?? [];
      list.push(approval);
      approvals.set(approval.requestId, list);
    }
    for (const entry of page) {
      counted.rows += 1;
      yield auditRecord(entry, approvals.get(requestIdOf(entry) ?? '') ?? []);
    }
  }
}
