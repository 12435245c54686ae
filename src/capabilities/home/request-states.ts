import type { CapabilityStore } from '../../deps.js';
import type { AuditEntry } from '../../platform/store/audit-log.js';
import type { DeletionStatus } from '../../platform/store/deletion-requests.js';

/** The operation whose activity line follows the request it approved: an approval is one step of a request. */
const FOLLOWS_ITS_REQUEST = 'customers.delete.approve';

/**
 * The current status of each deletion request these entries approved, by id (read in the entry's workspace):
 * an approval's activity line shows where the request stands now, not the count at the time of approving.
 */
export async function approvedRequestStates(
  store: CapabilityStore,
  entries: readonly AuditEntry[],
): Promise<Map<string, DeletionStatus>> {
  const asked = new Map<string, string | undefined>();
  for (const entry of entries)
    if (entry.operation === FOLLOWS_ITS_REQUEST && typeof entry.inputs.requestId === 'string')
      asked.set(entry.inputs.requestId, entry.teamId);
  const states = new Map<string, DeletionStatus>();
  await Promise.all(
    [...asked].map(async ([id, teamId]) => {
      const request = await (teamId === undefined
        ? store.deletionRequests.get(id)
        : store.deletionRequests.forTeam(teamId).get(id));
      if (request) states.set(id, request.status);
    }),
  );
  return states;
}
