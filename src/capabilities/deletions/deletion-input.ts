import { customerIdProblems, withoutRepeats } from '../../platform/mint/customer-ids.js';
import { DELETION_CUSTOMER_LIMIT } from '../../platform/mint/schemas.js';
import { MAX_REASON_LENGTH } from './deletion-context.js';

export type DeletionInputCheck =
  | { ok: true; customerIds: string[]; duplicatesRemoved: number; reason: string }
  | { ok: false; problems: { customerIds?: string; reason?: string } };

/**
 * What every way of asking for a deletion must give (the form, the message shortcut's form, the workflow
 * step): well-formed customer IDs (repeats are dropped), at least one and at most the limit, and a reason
 * the approvers can read.
 */
export function checkDeletionInput(ids: readonly string[], reason: string | undefined): DeletionInputCheck {
  const problems: { customerIds?: string; reason?: string } = {};
  const idProblem = customerIdProblems(ids, { repeats: 'allowed', limit: DELETION_CUSTOMER_LIMIT });
  if (idProblem) problems.customerIds = idProblem;
  const { ids: unique, removed } = withoutRepeats(ids);
  if (!problems.customerIds && unique.length === 0) problems.customerIds = 'Enter at least one customer ID.';
  const given = reason?.trim();
  if (!given) problems.reason = 'Give a reason: the approvers read it.';
  else if (given.length > MAX_REASON_LENGTH)
    problems.reason = `The reason is ${given.length} characters long; keep it to ${MAX_REASON_LENGTH} (the approvers read it).`;
  if (problems.customerIds || problems.reason) return { ok: false, problems };
  return { ok: true, customerIds: unique, duplicatesRemoved: removed, reason: given ?? '' };
}
