import type { ExpressionBuilder, Kysely } from 'kysely';
import { databaseNow } from './database-now.js';
import type { Tables } from './tables.js';

/** `reminder`: in the approval thread, naming who can still decide; `expiry-warning`: a DM to the requester. */
export type ReminderKind = 'reminder' | 'expiry-warning';

/** Due requests read per sweep; the rest come at the next one. */
const BATCH = 50;

/**
 * Reminders about pending deletion requests, each sent once: the sender first claims it (an insert that only
 * one replica can make, and that survives restarts), and gives the claim back only if Slack refused it. Each
 * statement is confined to one workspace's requests (a reminder row belongs to its request's workspace): the
 * reminders are sent workspace by workspace, under that workspace's settings.
 */
export class DeletionReminders {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  /**
   * Ids of the workspace's pending, unexpired requests due for a reminder of `kind` that has not been sent:
   * pending for `pendingForMs` at least (reminders), or expiring within `expiringWithinMs` (warnings). Judged
   * by the database's clock, `aheadMs` ahead of it (tests only: see TEST_CLOCK_OFFSET_HOURS).
   */
  async due(
    teamId: string,
    kind: ReminderKind,
    due: { pendingForMs?: number; expiringWithinMs?: number },
    aheadMs = 0,
  ): Promise<string[]> {
    let query = this.db
      .selectFrom('deletion_requests')
      .select('id')
      .where('team_id', '=', teamId)
      .where('status', '=', 'pending')
      .where('expires_at', '>', databaseNow(this.engine, aheadMs))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('deletion_reminders')
              .select('request_id')
              .whereRef('deletion_reminders.request_id', '=', 'deletion_requests.id')
              .where('deletion_reminders.kind', '=', kind),
          ),
        ),
      );
    if (due.pendingForMs !== undefined)
      query = query.where('created_at', '<=', databaseNow(this.engine, aheadMs - due.pendingForMs));
    if (due.expiringWithinMs !== undefined)
      query = query.where('expires_at', '<=', databaseNow(this.engine, aheadMs + due.expiringWithinMs));
    const rows = await query.orderBy('created_at').limit(BATCH).execute();
    return rows.map((r) => r.id);
  }

  /**
   * True for the one caller, on any replica, that is to send this reminder (never for a request of another
   * workspace: the row is made from the request, found in `teamId`).
   */
  async claim(teamId: string, requestId: string, kind: ReminderKind): Promise<boolean> {
    const result = await this.db
      .insertInto('deletion_reminders')
      .columns(['request_id', 'kind', 'sent_at'])
      .expression((eb) =>
        eb
          .selectFrom('deletion_requests')
          .select((s) => ['id', s.val(kind).as('kind'), s.val(databaseNow(this.engine)).as('sent_at')])
          .where('id', '=', requestId)
          .where('team_id', '=', teamId),
      )
      .onConflict((oc) => oc.columns(['request_id', 'kind']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Gives a claim back (Slack refused the reminder, so it was not posted): the next sweep tries again. */
  async release(teamId: string, requestId: string, kind: ReminderKind): Promise<void> {
    await this.db
      .deleteFrom('deletion_reminders')
      .where('request_id', '=', requestId)
      .where('kind', '=', kind)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .execute();
  }

  /** When each reminder of this request of the workspace was sent. */
  async sent(teamId: string, requestId: string): Promise<Partial<Record<ReminderKind, Date>>> {
    const rows = await this.db
      .selectFrom('deletion_reminders')
      .selectAll()
      .where('request_id', '=', requestId)
      .where('request_id', 'in', (eb) => ofTeam(eb, teamId))
      .execute();
    return Object.fromEntries(rows.map((r) => [r.kind, new Date(r.sent_at)]));
  }
}

/** The ids of a workspace's requests. */
function ofTeam(eb: ExpressionBuilder<Tables, 'deletion_reminders'>, teamId: string) {
  return eb.selectFrom('deletion_requests').select('id').where('team_id', '=', teamId);
}
