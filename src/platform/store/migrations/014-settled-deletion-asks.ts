import { sql, type Kysely } from 'kysely';

/**
 * The audit entry of a deletion request's asking (`customers.delete.request`) follows the request's status
 * (see settleAskedEntry). Entries written before that stayed `pending` whatever became of their request: each
 * gets its request's status now. (Its `detail` is the request's id.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update audit_log set outcome = (
      select status from deletion_requests where deletion_requests.id = audit_log.detail
    )
    where operation = 'customers.delete.request' and outcome = 'pending'
      and exists (
        select 1 from deletion_requests
        where deletion_requests.id = audit_log.detail and deletion_requests.status <> 'pending'
      )`.execute(db);
}

/** Nothing to undo: the outcomes are the requests' own, which the code before this kept no other way. */
export async function down(): Promise<void> {}
