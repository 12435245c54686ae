import type { Kysely } from 'kysely';
import { databaseNow } from './database-now.js';
import { type DeletionRequest, DeletionRequests, recordDecider, settleAskedEntry } from './deletion-requests.js';
import type { Tables } from './tables.js';

/**
 * How one approval ended: `recorded` (counted, more are needed), `approved` (it was the last one needed: the
 * request is now approved, and this approver's caller runs the deletion), `already` (this approver had
 * approved before; nothing changed) or `closed` (the request is gone, decided, or expired; nothing changed).
 */
export type ApprovalResult =
  | { outcome: 'recorded' | 'approved' | 'already'; request: DeletionRequest }
  | { outcome: 'closed'; request: DeletionRequest | undefined };

export interface Approval {
  requestId: string;
  approverId: string;
  approvedAt: Date;
}

/** A request whose count keeps moving under us this often is not normal: say so rather than loop. */
const MAX_ATTEMPTS = 50;

/**
 * The approvals of deletion requests. The count on the request moves by compare-and-set (UPDATE ... WHERE
 * approvals = the count read, and still pending and unexpired): of concurrent approvals on any number of
 * replicas each is counted once, and exactly one of them, the last one needed, turns the request to
 * approved. Call `approve` inside a transaction, with its audit entry.
 */
export class DeletionApprovals {
  private readonly requests: DeletionRequests;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {
    this.requests = new DeletionRequests(db, engine);
  }

  /**
   * `approverId` approves request `requestId` of workspace `teamId` (a request of another workspace is not
   * found: `closed`). Expiry is judged by the database's clock, as everywhere (see DeletionRequests).
   */
  async approve(teamId: string, requestId: string, approverId: string): Promise<ApprovalResult> {
    const now = databaseNow(this.engine);
    const requests = this.requests.forTeam(teamId);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const seen = await requests.get(requestId);
      if (!seen || seen.status !== 'pending') return { outcome: 'closed', request: seen };
      if (seen.approverIds.includes(approverId)) return { outcome: 'already', request: seen };
      // The requester never counts, whatever the caller checked (four eyes hold in the store itself).
      if (seen.requesterId === approverId) return { outcome: 'closed', request: seen };
      const approverIds = [...seen.approverIds, approverId];
      const reached = approverIds.length >= seen.approvalsNeeded;
      const result = await this.db
        .updateTable('deletion_requests')
        .set({
          approvals: approverIds.length,
          approved_by: JSON.stringify(approverIds),
          updated_at: now,
          ...(reached ? { status: 'approved', decided_by: approverId, decided_at: now } : {}),
        })
        .where('id', '=', requestId)
        .where('team_id', '=', teamId)
        .where('status', '=', 'pending')
        .where('approvals', '=', seen.approverIds.length)
        .where('requester_id', '!=', approverId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) {
        // Expired meanwhile (by the database's clock), or another approval (or decision) landed first: read again.
        if (await requests.hasExpired(requestId)) return { outcome: 'closed', request: seen };
        continue;
      }
      await this.db
        .insertInto('deletion_approvals')
        .values({ request_id: requestId, approver_id: approverId, approved_at: now })
        .execute();
      const request = (await requests.get(requestId)) ?? { ...seen, approverIds };
      if (reached) await settleAskedEntry(this.db, request);
      await recordDecider(this.db, request, approverId);
      return { outcome: reached ? 'approved' : 'recorded', request };
    }
    throw new Error(`the approvals of ${requestId} kept changing; try again`);
  }

  /**
   * Every approval of these requests, oldest first (for the audit export); with `teamId`, only of requests of
   * that workspace (ids of another's are passed over).
   */
  async of(requestIds: readonly string[], teamId?: string): Promise<Approval[]> {
    if (requestIds.length === 0) return [];
    let query = this.db
      .selectFrom('deletion_approvals')
      .selectAll()
      .where('request_id', 'in', [...new Set(requestIds)]);
    if (teamId !== undefined)
      query = query.where('request_id', 'in', (eb) =>
        eb.selectFrom('deletion_requests').select('id').where('team_id', '=', teamId),
      );
    const rows = await query.orderBy('approved_at').orderBy('approver_id').execute();
    return rows.map((r) => ({
      requestId: r.request_id,
      approverId: r.approver_id,
      approvedAt: new Date(r.approved_at),
    }));
  }
}
