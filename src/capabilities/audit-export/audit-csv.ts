import { safeCell } from '../../platform/csv/write-csv-file.js';
import type { AuditEntry } from '../../platform/store/audit-log.js';
import type { Approval } from '../../platform/store/deletion-requests.js';
import { fieldOf } from '../../platform/unknown-fields.js';

/** The export's columns, in order: its header row. */
export const AUDIT_CSV_COLUMNS = [
  'when',
  'who',
  'origin',
  'team',
  'operation',
  'inputs',
  'outcome',
  'detail',
  'approvers',
  'entry_id',
] as const;

/** Longest cell written from a free-text field: an entry's detail is at most 1000 characters already. */
const MAX_VALUE_CHARS = 500;
/** Items of a list shown in the inputs summary; the count says how many there were. */
const LIST_ITEMS_SHOWN = 10;

/**
 * One audit entry as a CSV record. `approvals`: the approvals of the deletion request the entry is about
 * (who, when), for the `approvers` column.
 */
export function auditRecord(entry: AuditEntry, approvals: readonly Approval[]): string[] {
  return [
    entry.at.toISOString(),
    entry.actorId,
    // Slack's UI, or the workflow execution that acted on the person's behalf.
    entry.origin ?? 'slack',
    entry.teamId ?? '',
    entry.operation,
    inputsSummary(entry.inputs),
    entry.outcome,
    entry.detail ?? '',
    approvals.map((a) => `${a.approverId} ${a.approvedAt.toISOString()}`).join('; '),
    entry.id,
  ].map((cell) => safeCell(cell)); // a reason typed as `=HYPERLINK(...)` is never run when the export is opened
}

/** The request an entry is about, when it is one of the deletion flow's. */
export function requestIdOf(entry: AuditEntry): string | undefined {
  const id = entry.inputs.requestId;
  return entry.operation.startsWith('customers.delete') && typeof id === 'string' ? id : undefined;
}

/**
 * The inputs in one line, `key=value; key=value`: lists as their count and first items (a long list was
 * stored as `{count, first}` already), nested values as compact JSON, long texts cut.
 */
export function inputsSummary(inputs: Record<string, unknown>): string {
  return Object.entries(inputs)
    .map(([key, value]) => `${key}=${valueSummary(value)}`)
    .join('; ');
}

function valueSummary(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return cut(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return listSummary(value.length, value);
  if (typeof value === 'object') {
    const count = fieldOf(value, 'count');
    const first = fieldOf(value, 'first');
    if (typeof count === 'number' && Array.isArray(first)) return listSummary(count, first);
  }
  return cut(JSON.stringify(value));
}

function listSummary(count: number, items: readonly unknown[]): string {
  const shown = items
    .slice(0, LIST_ITEMS_SHOWN)
    .map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  return cut(`[${count}] ${shown.join(' ')}${count > shown.length ? ' …' : ''}`);
}

function cut(text: string): string {
  return text.length <= MAX_VALUE_CHARS ? text : `${text.slice(0, MAX_VALUE_CHARS - 1)}…`;
}
