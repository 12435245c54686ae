import { z } from 'zod';
import type { HistoryKind, HistoryMade, HistoryRecord } from './history-entry.js';
import { historyRecord } from './history-entry.js';

/*
 * The backfill's reading of the audit log written before History existed: which operations made something, and
 * what their inputs said, in every shape a version wrote. Only the backfill reads audit inputs; what the app
 * makes now is handed to its audit entry by the capability that makes it (see HistoryMade).
 */

/** The audit operations that made each kind, as the audit log written before History names them. */
export const BACKFILLED_OPERATIONS: Readonly<Record<string, HistoryKind>> = {
  'link.create': 'link',
  'wallet.create': 'wallet',
  'customers.delete.request': 'deletion',
  'bulk.run': 'bulk',
};

/** An audit entry as the backfill reads it. */
export interface BackfilledEntry {
  id: string;
  at: Date;
  actorId: string;
  teamId: string | undefined;
  operation: string;
  origin: string | undefined;
  inputs: Record<string, unknown>;
  outcome: string;
  detail: string | undefined;
}

const text = z.string().min(1).max(2_000);
const linkInputs = z.object({
  nftId: text.optional(),
  email: text.optional(),
  customerId: z.array(text).optional(),
  maxCheckoutQuantity: z.number().optional(),
  startDate: text.optional(),
  endDate: text.optional(),
  isActive: z.boolean().optional(),
  type: text.optional(),
  walletOptions: text.optional(),
});
const walletInputs = z.object({ userId: text.optional() });
/** The audit log shortens a long list to `{count, first}` (audit-log.ts): the backfill reads the request's own. */
const customerList = z.union([z.array(text), z.object({ count: z.number(), first: z.array(text) })]);
const deletionInputs = z.object({
  requestId: text,
  customerIds: customerList.optional(),
  reason: text.optional(),
  context: text.optional(),
});
const bulkInputs = z.object({
  jobId: text,
  kind: text.optional(),
  source: text.optional(),
  rows: z.number().optional(),
  valid: z.number().optional(),
  retryOf: text.optional(),
  defaults: z.object({ nftId: text.optional() }).loose().optional(),
});

/**
 * The history row an old audit entry made, or undefined when it makes none (another operation, no workspace, or
 * inputs of a shape no version wrote). `fullCustomerIds`: a deletion request's customers as the request keeps
 * them.
 */
export function backfilledHistory(
  entry: BackfilledEntry,
  fullCustomerIds?: readonly string[],
): HistoryRecord | undefined {
  const made = madeBy(entry, fullCustomerIds);
  return made ? historyRecord(entry, made) : undefined;
}

function madeBy(entry: BackfilledEntry, fullCustomerIds: readonly string[] | undefined): HistoryMade | undefined {
  const how = entry.origin?.startsWith('workflow') ? 'workflow' : 'form';
  switch (BACKFILLED_OPERATIONS[entry.operation]) {
    case 'link': {
      const inputs = linkInputs.safeParse(entry.inputs);
      return inputs.success ? { kind: 'link', how, link: inputs.data } : undefined;
    }
    case 'wallet': {
      const inputs = walletInputs.safeParse(entry.inputs);
      return inputs.success ? { kind: 'wallet', how, customerId: inputs.data.userId } : undefined;
    }
    case 'deletion': {
      const inputs = deletionInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      const listed = inputs.data.customerIds;
      return {
        kind: 'deletion',
        how: how === 'form' && inputs.data.context !== undefined ? 'message' : how,
        requestId: inputs.data.requestId,
        customerIds: fullCustomerIds ?? (Array.isArray(listed) ? listed : (listed?.first ?? [])),
        reason: inputs.data.reason,
        context: inputs.data.context,
      };
    }
    case 'bulk': {
      const inputs = bulkInputs.safeParse(entry.inputs);
      if (!inputs.success) return undefined;
      const job = inputs.data;
      return {
        kind: 'bulk',
        job: {
          jobId: job.jobId,
          of: job.kind ?? '',
          source: job.source ?? '',
          rows: job.rows ?? 0,
          valid: job.valid ?? 0,
          retryOf: job.retryOf,
          nftId: job.defaults?.nftId,
        },
      };
    }
    case undefined:
      return undefined;
  }
}
