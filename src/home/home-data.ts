import type { Approvers } from '../customers/approvers.js';
import type { DeletionSettings } from '../customers/deletion-settings.js';
import type { MintServiceStatus } from '../mint-api/mint-api-client.js';
import type { AuditEntry } from '../store/audit-log.js';
import type { DeletionRequest } from '../store/deletion-requests.js';
import type { Store } from '../store/store.js';

/** Items shown on Home per list; the rest are one click away. */
export const NEWEST_SHOWN = 5;
export const ACTIVITY_SHOWN = 10;

export interface HomeStatus {
  mode: 'socket' | 'http';
  deletion: { settings: DeletionSettings; approvers: string } | { missing: string[] };
  mint: MintServiceStatus;
}

export interface HomeData {
  userId: string;
  /** For approvers: the pending requests they may decide (not their own). */
  approvals: { count: number; newest: DeletionRequest[] } | undefined;
  ownPending: { count: number; newest: DeletionRequest[] };
  activity: AuditEntry[];
  status: HomeStatus;
}

export interface HomeSources {
  store: Store;
  approvers: Approvers;
  status: () => HomeStatus;
}

/** What one user's Home shows, read fresh from the database. */
export async function loadHomeData(sources: HomeSources, userId: string): Promise<HomeData> {
  const requests = sources.store.deletionRequests;
  const [isApprover, ownCount, ownNewest, activity] = await Promise.all([
    sources.approvers.check(userId).then((c) => c.approver),
    requests.count({ statuses: ['pending'], requesterId: userId }),
    requests.list({ statuses: ['pending'], requesterId: userId, limit: NEWEST_SHOWN }),
    sources.store.audit.list({ actorId: userId, limit: ACTIVITY_SHOWN }),
  ]);
  const approvals = isApprover
    ? {
        count: await requests.count({ statuses: ['pending'], notRequesterId: userId }),
        newest: await requests.list({ statuses: ['pending'], notRequesterId: userId, limit: NEWEST_SHOWN }),
      }
    : undefined;
  return { userId, approvals, ownPending: { count: ownCount, newest: ownNewest }, activity, status: sources.status() };
}
