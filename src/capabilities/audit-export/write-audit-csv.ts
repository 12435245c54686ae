import type { CapabilityStore } from '../../deps.js';
import { closeSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import type { AuditPeriod } from '../../platform/store/audit-log-pages.js';
import type { Approval } from '../../platform/store/deletion-requests.js';
import { AUDIT_CSV_COLUMNS, auditRecord, requestIdOf } from './audit-csv.js';

/**
 * Writes the period's audit entries to a CSV file, oldest first, and returns how many there were. The rows
 * come from the database a page at a time (with the approvals of the page's deletion requests); each page
 * is turned into CSV by csv-stringify and written before the next is read, so memory holds one page whatever
 * the size of the export.
 *
 * The pages are written with writeSync (a page is about 125 kB, well under a millisecond into the page
 * cache): an asynchronous write stream turns each chunk into a Buffer that lives until its write comes back
 * from the thread pool, long enough to reach V8's old space, and an export of 100,000 rows would leave
 * 20 MB of them behind for the next full collection. The file is readable by the app's user only.
 */
export async function writeAuditCsv(
  store: Pick<CapabilityStore, 'auditLogPages' | 'deletionApprovals'>,
  period: AuditPeriod,
  path: string,
): Promise<number> {
  const fd = openSync(path, 'wx', 0o600); // a new file only: never one that is already there
  let rows = 0;
  try {
    writeSync(fd, stringify([[...AUDIT_CSV_COLUMNS]]));
    for await (const page of store.auditLogPages.pages(period)) {
      const requestIds = page.map((entry) => requestIdOf(entry)).filter((id): id is string => id !== undefined);
      const approvals = new Map<string, Approval[]>();
      for (const approval of await store.deletionApprovals.of(requestIds, period.teamId)) {
        const list = approvals.get(approval.requestId) ?? [];
        list.push(approval);
        approvals.set(approval.requestId, list);
      }
      writeSync(fd, stringify(page.map((entry) => auditRecord(entry, approvals.get(requestIdOf(entry) ?? '') ?? []))));
      rows += page.length;
      await new Promise((resolve) => setImmediate(resolve)); // SQLite reads block: let requests in between pages
    }
  } finally {
    closeSync(fd);
  }
  return rows;
}
