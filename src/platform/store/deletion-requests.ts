import { randomInt } from 'node:crypto';
import type { DeletionApprovers } from '../ops/config/config.js';
import type { ExpressionBuilder, InsertObject, Kysely, Selectable, UpdateObject } from 'kysely';
import { databaseNow } from './database-now.js';
import { addDecider } from './history/write.js';
import type { DeletionRequestsTable, DeletionStatus, Tables } from './tables.js';
import { z } from 'zod';
import { parseJson } from './stored-json.js';

// The union is the column's own type (tables.ts), so a row reads back typed.
export type { DeletionStatus } from './tables.js';

/** The statuses in which a request has ended for good (a failed one may still be retried by an approver). */
export const ENDED_STATUSES: ReadonlySet<DeletionStatus> = new Set([
  'done',
  'failed',
  'rejected',
  'cancelled',
  'expired',
]);

/** The audit operation of asking for a deletion: its entry's outcome follows the request (see settleAskedEntry). */
export const DELETION_ASKED_OPERATION = 'customers.delete.request';

/** What a cancel says when the requester cancels (the default reason). */
export const CANCELLED_BY_REQUESTER = 'cancelled by the requester';

export interface DeletionRequest {
  id: string;
  /** Its workspace ('' only on a row from before workspaces were recorded, until the start gives it one). */
  teamId: string;
  requesterId: string;
  customerIds: string[];
  duplicatesRemoved: number;
  reason: string;
  status: DeletionStatus;
  createdAt: Date;
  expiresAt: Date;
  updatedAt: Date;
  decidedBy: string | undefined;
  decidedAt: Date | undefined;
  decisionNote: string | undefined;
  approvalChannelId: string | undefined;
  approvalMessageTs: string | undefined;
  requesterMessageChannel: string | undefined;
  requesterMessageTs: string | undefined;
  runStartedAt: Date | undefined;
  runBy: string | undefined;
  finishedAt: Date | undefined;
  outcomeDetail: string | undefined;
  /** Of a finished deletion: how many customers the Mint service said it did not find (undefined: none named). */
  notFoundCount: number | undefined;
  attempts: number;
  /** Approvals needed (see DeletionApprovals) and who approved so far, in order. */
  approvalsNeeded: number;
  approverIds: string[];
  /** `workflow <execution id>` when a workflow step asked; undefined when a person did in Slack. */
  origin: string | undefined;
  /** The permalink of the message it was asked from (the message shortcut). */
  contextUrl: string | undefined;
  /**
   * Who could approve it, fixed when it was opened (the settings then in force): a later change of the
   * approvers never approves or blocks it. Undefined for requests from before this was recorded.
   */
  approvers: DeletionApprovers | undefined;
}

export interface NewDeletionRequest {
  teamId: string | undefined;
  requesterId: string;
  customerIds: string[];
  duplicatesRemoved: number;
  reason: string;
  /** How long it waits for a decision (from when the database stores it). */
  ttlMs: number;
  /** The quorum in force when it is made. */
  approvalsNeeded: number;
  /** The approvers in force when it is made. */
  approvers: DeletionApprovers;
  origin?: string | undefined;
  contextUrl?: string | undefined;
}

export interface RequestFilter {
  statuses?: DeletionStatus[];
  requesterId?: string;
  /** Leave out one user's own requests (approvers cannot decide those). */
  notRequesterId?: string;
  /** Leave out the requests this user approved already (waiting for other approvers). */
  notApprovedBy?: string;
}

/** The result of a compare-and-set: the row after it, and whether this caller made the change. */
export type Transition = { won: true; request: DeletionRequest } | { won: false; request: DeletionRequest | undefined };

/** A request found by background work across workspaces, named with its workspace. */
export interface RequestRef {
  teamId: string;
  id: string;
}

/**
 * Deletion requests. Every change of status is a compare-and-set (UPDATE ... WHERE status = expected), so
 * of any number of concurrent callers, on any number of replicas, exactly one wins.
 *
 * Every time is the database's (see databaseNow), written and judged in SQL: whether a run is still going,
 * or a request has expired, is the same answer on every replica, whatever their own clocks say.
 *
 * Each request belongs to a workspace. Whatever a workspace's request (a click, a form, a step) reads or
 * changes goes through `forTeam(teamId)`, whose every statement is confined to that workspace: an id of
 * another workspace's request is not found there. Background work finds what is due across workspaces as
 * RequestRefs, and handles each through its own workspace. `get`, `list` and `count` read across every
 * workspace: for the operator's tools and tests, never to answer a workspace.
 */
export class DeletionRequests {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  /** The requests of one workspace, and nothing else. */
  forTeam(teamId: string): WorkspaceDeletionRequests {
    return new WorkspaceDeletionRequests(this.db, this.engine, teamId);
  }

  async create(input: NewDeletionRequest): Promise<DeletionRequest> {
    const now = databaseNow(this.engine);
    for (let attempt = 0; ; attempt += 1) {
      const id = newRequestId();
      const row: InsertObject<Tables, 'deletion_requests'> = {
        id,
        team_id: input.teamId ?? null,
        requester_id: input.requesterId,
        customer_ids: JSON.stringify(input.customerIds),
        customer_count: input.customerIds.length,
        duplicates_removed: input.duplicatesRemoved,
        reason: input.reason,
        status: 'pending',
        created_at: now,
        expires_at: databaseNow(this.engine, input.ttlMs),
        updated_at: now,
        decided_by: null,
        decided_at: null,
        decision_note: null,
        approval_channel_id: null,
        approval_message_ts: null,
        requester_message_channel: null,
        requester_message_ts: null,
        run_started_at: null,
        run_by: null,
        finished_at: null,
        outcome_detail: null,
        not_found_count: null,
        attempts: 0,
        approvals_needed: input.approvalsNeeded,
        approvals: 0,
        approved_by: '[]',
        origin: input.origin ?? null,
        context_url: input.contextUrl ?? null,
        approvers: JSON.stringify({ users: input.approvers.users, userGroups: input.approvers.userGroups }),
      };
      try {
        return toRequest(
          await this.db.insertInto('deletion_requests').values(row).returningAll().executeTakeFirstOrThrow(),
        );
      } catch (error) {
        // An id taken already (one in a billion, in any workspace: ids are unique across them): draw another.
        // Anything else is a real failure.
        if (attempt >= 3 || (await this.get(id)) === undefined) throw error;
      }
    }
  }

  /** Pending requests past their expiry, in every workspace. */
  async overdue(): Promise<RequestRef[]> {
    const rows = await this.db
      .selectFrom('deletion_requests')
      .select(['id', 'team_id'])
      .where('status', '=', 'pending')
      .where('expires_at', '<=', databaseNow(this.engine))
      .where('team_id', 'is not', null)
      .execute();
    return rows.map((row) => toRef(row));
  }

  /** Runs that cannot still be going, in every workspace: approved or running for longer than `leaseMs`. */
  async staleRuns(leaseMs: number): Promise<RequestRef[]> {
    const rows = await this.db
      .selectFrom('deletion_requests')
      .select(['id', 'team_id'])
      .where((eb) => staleRun(this.engine, eb, leaseMs))
      .where('team_id', 'is not', null)
      .execute();
    return rows.map((row) => toRef(row));
  }

  /** The workspaces with requests waiting for a decision (the reminders go through each). */
  async teamsWithPending(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('deletion_requests')
      .select('team_id')
      .distinct()
      .where('status', '=', 'pending')
      .where('team_id', 'is not', null)
      .orderBy('team_id')
      .execute();
    return rows.flatMap((r) => (r.team_id ? [r.team_id] : []));
  }

  /** How many requests are in each status, all workspaces together (for /metrics). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('deletion_requests')
      .select((eb) => ['status', eb.fn.countAll<string | number>().as('n')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  /** A request of any workspace (the operator's tools and tests; a workspace reads through forTeam). */
  async get(id: string): Promise<DeletionRequest | undefined> {
    const row = await this.db.selectFrom('deletion_requests').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRequest(row) : undefined;
  }

  /** Requests of every workspace (the operator's tools and tests; a workspace reads through forTeam). */
  async list(filter: RequestFilter & { limit?: number } = {}): Promise<DeletionRequest[]> {
    return new RequestReads(this.db, undefined).list(filter);
  }

  /** How many requests of every workspace match (the operator's tools and tests). */
  async count(filter: RequestFilter = {}): Promise<number> {
    return new RequestReads(this.db, undefined).count(filter);
  }
}

/** The deletion requests of one workspace: every statement is confined to it (see DeletionRequests). */
export class WorkspaceDeletionRequests {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
    readonly teamId: string,
  ) {}

  async get(id: string): Promise<DeletionRequest | undefined> {
    const row = await this.db
      .selectFrom('deletion_requests')
      .selectAll()
      .where('id', '=', id)
      .where('team_id', '=', this.teamId)
      .executeTakeFirst();
    return row ? toRequest(row) : undefined;
  }

  async setApprovalMessage(id: string, channelId: string, ts: string): Promise<void> {
    await this.db
      .updateTable('deletion_requests')
      .set({ approval_channel_id: channelId, approval_message_ts: ts })
      .where('id', '=', id)
      .where('team_id', '=', this.teamId)
      .execute();
  }

  async setRequesterMessage(id: string, channelId: string, ts: string): Promise<void> {
    await this.db
      .updateTable('deletion_requests')
      .set({ requester_message_channel: channelId, requester_message_ts: ts })
      .where('id', '=', id)
      .where('team_id', '=', this.teamId)
      .execute();
  }

  /** pending -> approved or rejected, only before it expires. */
  async decide(
    id: string,
    decision: 'approved' | 'rejected',
    by: string,
    note: string | undefined,
  ): Promise<Transition> {
    return this.transition(
      id,
      ['pending'],
      { status: decision, decided_by: by, decided_at: databaseNow(this.engine), decision_note: note ?? null },
      { unexpired: true },
    );
  }

  /** Whether the request's time to be decided is over (by the database's clock), whatever its status. */
  async hasExpired(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('deletion_requests')
      .select('id')
      .where('id', '=', id)
      .where('team_id', '=', this.teamId)
      .where('expires_at', '<=', databaseNow(this.engine))
      .executeTakeFirst();
    return row !== undefined;
  }

  /** pending -> cancelled, by the requester only; `note` says why when it is not their own choice. */
  async cancel(id: string, by: string, note = CANCELLED_BY_REQUESTER): Promise<Transition> {
    return this.transition(
      id,
      ['pending'],
      { status: 'cancelled', decided_by: by, decided_at: databaseNow(this.engine), decision_note: note },
      { requester: by },
    );
  }

  /**
   * Every pending request of the workspace -> cancelled by `by` (the app itself), saying `note`: when the
   * workspace removed the app, nothing of it may wait any more. Resolves with the requests it cancelled.
   */
  async cancelAllPending(by: string, note: string): Promise<DeletionRequest[]> {
    const now = databaseNow(this.engine);
    return atomically(this.db, async (db) => {
      const rows = await db
        .updateTable('deletion_requests')
        .set({ status: 'cancelled', decided_by: by, decided_at: now, decision_note: note, updated_at: now })
        .where('team_id', '=', this.teamId)
        .where('status', '=', 'pending')
        .returningAll()
        .execute();
      const cancelled = rows.map((row) => toRequest(row));
      for (const request of cancelled) await settleAskedEntry(db, request);
      return cancelled;
    });
  }

  /** approved, failed or interrupted -> running: whoever wins sends the deletion; nobody else does. */
  async claimRun(
    id: string,
    from: ReadonlyArray<'approved' | 'failed' | 'attention'>,
    by: string,
  ): Promise<Transition> {
    return this.transition(
      id,
      from,
      { status: 'running', run_started_at: databaseNow(this.engine), run_by: by, finished_at: null },
      { countAttempt: true },
    );
  }

  /** running -> done|failed; `notFound`: how many customers the service said it did not find, if it said. */
  async finishRun(id: string, outcome: 'done' | 'failed', detail: string, notFound?: number): Promise<Transition> {
    return this.transition(id, ['running'], {
      status: outcome,
      finished_at: databaseNow(this.engine),
      outcome_detail: detail,
      not_found_count: notFound ?? null,
    });
  }

  /** pending -> expired, once its expiry has passed. */
  async expire(id: string): Promise<Transition> {
    return this.transition(
      id,
      ['pending'],
      { status: 'expired', decision_note: 'expired without a decision' },
      { expiredOnly: true },
    );
  }

  /** approved|running -> attention, if still stale (see staleRuns): the process that had the run died. */
  async interrupt(id: string, leaseMs: number): Promise<Transition> {
    return this.transition(
      id,
      ['approved', 'running'],
      { status: 'attention', outcome_detail: 'interrupted: the app stopped during the deletion' },
      { staleLeaseMs: leaseMs },
    );
  }

  async list(filter: RequestFilter & { limit?: number } = {}): Promise<DeletionRequest[]> {
    return new RequestReads(this.db, this.teamId).list(filter);
  }

  async count(filter: RequestFilter = {}): Promise<number> {
    return new RequestReads(this.db, this.teamId).count(filter);
  }

  private async transition(
    id: string,
    from: readonly DeletionStatus[],
    changes: UpdateObject<Tables, 'deletion_requests'>,
    guard: {
      unexpired?: boolean;
      expiredOnly?: boolean;
      requester?: string;
      countAttempt?: boolean;
      staleLeaseMs?: number;
    } = {},
  ): Promise<Transition> {
    const now = databaseNow(this.engine);
    return atomically(this.db, async (db) => {
      let update = db
        .updateTable('deletion_requests')
        .set({ ...changes, updated_at: now })
        .where('id', '=', id)
        .where('team_id', '=', this.teamId)
        .where('status', 'in', from);
      if (guard.countAttempt) update = update.set((eb) => ({ attempts: eb('attempts', '+', 1) }));
      if (guard.unexpired) update = update.where('expires_at', '>', now);
      if (guard.expiredOnly) update = update.where('expires_at', '<=', now);
      if (guard.requester) update = update.where('requester_id', '=', guard.requester);
      const staleLeaseMs = guard.staleLeaseMs;
      if (staleLeaseMs !== undefined) update = update.where((eb) => staleRun(this.engine, eb, staleLeaseMs));
      const result = await update.executeTakeFirst();
      const request = await new WorkspaceDeletionRequests(db, this.engine, this.teamId).get(id);
      if (Number(result.numUpdatedRows) !== 1 || !request) return { won: false, request };
      await settleAskedEntry(db, request);
      if (request.status === 'rejected' && request.decidedBy) await recordDecider(db, request, request.decidedBy);
      return { won: true, request };
    });
  }
}

/**
 * The audit entry of a request's asking (recorded `pending` when it was opened, by its requester) follows the
 * request's status: approved, running, done, failed, rejected, cancelled, expired, attention. Every change of
 * status calls it, in the transaction of the change, so the requester's activity on Home and the audit CSV say
 * how the request stands, never `pending` for one that ended, however it ended.
 */
export async function settleAskedEntry(
  db: Kysely<Tables>,
  request: Pick<DeletionRequest, 'id' | 'requesterId' | 'status'>,
): Promise<void> {
  await db
    .updateTable('audit_log')
    .set({ outcome: request.status })
    .where('actor_id', '=', request.requesterId) // the entries' index: the requester's own entries only
    .where('operation', '=', DELETION_ASKED_OPERATION)
    .where('detail', '=', request.id)
    .execute();
}

/**
 * A person who approved or rejected a request, on its History row (found, as settleAskedEntry finds it, by its
 * asking's audit entry), in the transaction of the decision.
 */
export async function recordDecider(
  db: Kysely<Tables>,
  request: Pick<DeletionRequest, 'id' | 'requesterId'>,
  deciderId: string,
): Promise<void> {
  const asked = await db
    .selectFrom('audit_log')
    .select('id')
    .where('actor_id', '=', request.requesterId)
    .where('operation', '=', DELETION_ASKED_OPERATION)
    .where('detail', '=', request.id)
    .executeTakeFirst();
  if (asked) await addDecider(db, asked.id, deciderId);
}

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

/** Runs `work` in a transaction: the caller's when it is in one already, else one of its own. */
function atomically<T>(db: Kysely<Tables>, work: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** Approved or running for longer than `leaseMs`, by the database's clock (both times are its own). */
function staleRun(engine: 'sqlite' | 'postgres', eb: ExpressionBuilder<Tables, 'deletion_requests'>, leaseMs: number) {
  const before = databaseNow(engine, -leaseMs);
  return eb.or([
    eb.and([eb('status', '=', 'running'), eb('run_started_at', '<', before)]),
    eb.and([eb('status', '=', 'approved'), eb('decided_at', '<', before)]),
  ]);
}

/** Lists and counts, of one workspace or (teamId undefined: the operator's tools) of all. */
class RequestReads {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly teamId: string | undefined,
  ) {}

  async list(filter: RequestFilter & { limit?: number }): Promise<DeletionRequest[]> {
    const rows = await this.db
      .selectFrom('deletion_requests')
      .selectAll()
      .where((eb) => this.matching(eb, filter))
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(filter.limit ?? 100)
      .execute();
    return rows.map((row) => toRequest(row));
  }

  async count(filter: RequestFilter): Promise<number> {
    const row = await this.db
      .selectFrom('deletion_requests')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where((eb) => this.matching(eb, filter))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  private matching(eb: ExpressionBuilder<Tables, 'deletion_requests'>, filter: RequestFilter) {
    const workspace = this.teamId === undefined ? [] : [eb('team_id', '=', this.teamId)];
    return eb.and([...workspace, matchesFilter(eb, filter)]);
  }
}

/** The requests `filter` asks for (every condition given; none given: all). */
function matchesFilter(eb: ExpressionBuilder<Tables, 'deletion_requests'>, filter: RequestFilter) {
  return eb.and([
    ...(filter.statuses?.length ? [eb('status', 'in', filter.statuses)] : []),
    ...(filter.requesterId ? [eb('requester_id', '=', filter.requesterId)] : []),
    ...(filter.notRequesterId ? [eb('requester_id', '!=', filter.notRequesterId)] : []),
    ...(filter.notApprovedBy ? [eb('approved_by', 'not like', approverPattern(filter.notApprovedBy))] : []),
  ]);
}

/** Matches `approved_by` (a JSON array of Slack ids, which hold no LIKE wildcards) when it names the user. */
const approverPattern = (userId: string) => `%${JSON.stringify(userId)}%`;

/** Short ids people can read out: DR- and 6 letters/digits without look-alikes. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
function newRequestId(): string {
  return `DR-${Array.from({ length: 6 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')}`;
}

/** A request's recorded approvers, as stored. */
const approversSchema = z.object({ users: z.array(z.string()), userGroups: z.array(z.string()) });

function toRef(row: { id: string; team_id: string | null }): RequestRef {
  return { id: row.id, teamId: row.team_id ?? '' };
}

function toRequest(row: Selectable<DeletionRequestsTable>): DeletionRequest {
  const date = (value: string | null) => (value ? new Date(value) : undefined);
  return {
    id: row.id,
    teamId: row.team_id ?? '',
    requesterId: row.requester_id,
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- read back as this repository wrote it (its own union or JSON.stringify, in the same column)
    customerIds: JSON.parse(row.customer_ids) as string[],
    duplicatesRemoved: row.duplicates_removed,
    reason: row.reason,
    status: row.status,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    updatedAt: new Date(row.updated_at),
    decidedBy: row.decided_by ?? undefined,
    decidedAt: date(row.decided_at),
    decisionNote: row.decision_note ?? undefined,
    approvalChannelId: row.approval_channel_id ?? undefined,
    approvalMessageTs: row.approval_message_ts ?? undefined,
    requesterMessageChannel: row.requester_message_channel ?? undefined,
    requesterMessageTs: row.requester_message_ts ?? undefined,
    runStartedAt: date(row.run_started_at),
    runBy: row.run_by ?? undefined,
    finishedAt: date(row.finished_at),
    outcomeDetail: row.outcome_detail ?? undefined,
    notFoundCount: row.not_found_count === null ? undefined : Number(row.not_found_count),
    attempts: Number(row.attempts),
    approvalsNeeded: Number(row.approvals_needed),
    approverIds: parseJson(row.approved_by, z.array(z.string())) ?? [],
    origin: row.origin ?? undefined,
    contextUrl: row.context_url ?? undefined,
    // Unreadable (it never is: the app writes it) reads as none recorded: the approvers in force decide.
    approvers: row.approvers ? parseJson(row.approvers, approversSchema) : undefined,
  };
}
