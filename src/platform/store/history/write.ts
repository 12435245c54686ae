import type { Kysely } from 'kysely';
import { z } from 'zod';
import { parseJson } from '../stored-json.js';
import type { HistoryTable, Tables } from '../tables.js';
import { type HistoryRecord, urlIn, urlWords } from './entry.js';

/*
 * History's rows written: each in the transaction of the audit entry that made it (see AuditLog), its URL and
 * outcome when its call ends, and whoever decided a deletion request in the decision's transaction.
 */

/**
 * Who a deletion request's row was asked of, as `history_audience` keeps it: a person, a user group, or (a
 * request from before its approvers were recorded) the approvers in force.
 */
export const userAudience = (userId: string) => `user:${userId}`;
export const groupAudience = (groupId: string) => `group:${groupId}`;
export const IN_FORCE_AUDIENCE = 'approvers';

const approversSchema = z.object({ users: z.array(z.string()), userGroups: z.array(z.string()) });

/**
 * Writes a history row and its words (in the caller's transaction: the audit entry's). `ifAbsent`: a row
 * already there is kept (the backfill meeting a row written live).
 */
export async function writeHistory(db: Kysely<Tables>, made: HistoryRecord, options: { ifAbsent?: boolean } = {}) {
  let insert = db.insertInto('history').values(made.row);
  if (options.ifAbsent) insert = insert.onConflict((oc) => oc.column('id').doNothing());
  const written = await insert.executeTakeFirst();
  if (Number(written.numInsertedOrUpdatedRows ?? 0) === 0) return;
  await addTerms(db, made.row, made.terms);
  await db
    .insertInto('history_people')
    .values({ team_id: made.row.team_id, user_id: made.row.actor_id, names: null, named_at: null })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .execute();
  if (made.row.kind === 'deletion') await addAudience(db, made.row);
}

/**
 * Who a deletion request's row is shown to besides its maker: the approvers and user groups it was asked of (the
 * request's own record, written before its audit entry in the same transaction), or the approvers in force for a
 * request from before they were recorded.
 */
async function addAudience(db: Kysely<Tables>, row: HistoryTable) {
  const request = row.request_id
    ? await db.selectFrom('deletion_requests').select('approvers').where('id', '=', row.request_id).executeTakeFirst()
    : undefined;
  const asked = request?.approvers ? parseJson(request.approvers, approversSchema) : undefined;
  const audiences = asked
    ? [...asked.users.map((user) => userAudience(user)), ...asked.userGroups.map((group) => groupAudience(group))]
    : [IN_FORCE_AUDIENCE];
  if (audiences.length === 0) return;
  await db
    .insertInto('history_audience')
    .values(
      [...new Set(audiences)].map((audience) => ({
        history_id: row.id,
        audience,
        team_id: row.team_id,
        actor_id: row.actor_id,
        made_at: row.made_at,
      })),
    )
    .onConflict((oc) => oc.columns(['history_id', 'audience']).doNothing())
    .execute();
  if (asked && asked.userGroups.length > 0)
    await db
      .insertInto('history_groups')
      .values([...new Set(asked.userGroups)].map((group) => ({ team_id: row.team_id, group_id: group })))
      .onConflict((oc) => oc.columns(['team_id', 'group_id']).doNothing())
      .execute();
}

/** The longest failure kept on a row: the app's own words for it are a sentence or two. */
const MAX_FAILURE_CHARS = 600;

/**
 * An audited operation's outcome, on its history row when it has one: the outcome, for a link made its URL (and
 * the URL's words), and for a failure why, as the person was told (`failure`: mrkdwn, nothing secret).
 */
export async function completeHistory(
  db: Kysely<Tables>,
  id: string,
  outcome: string,
  detail: string | undefined,
  failure?: string,
) {
  const row = await db.selectFrom('history').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return;
  const url = row.kind === 'link' && outcome === 'succeeded' ? urlIn(detail) : null;
  const facts =
    failure === undefined || outcome === 'succeeded'
      ? undefined
      : JSON.stringify({
          ...parseJson(row.facts, z.record(z.string(), z.unknown())),
          failure: failure.length <= MAX_FAILURE_CHARS ? failure : `${failure.slice(0, MAX_FAILURE_CHARS - 1)}…`,
        });
  await db
    .updateTable('history')
    .set({ outcome, ...(url ? { url } : {}), ...(facts ? { facts } : {}) })
    .where('id', '=', id)
    .execute();
  if (url) await addTerms(db, row, urlWords(url), { ifAbsent: true });
}

/** The word a deletion request's row has for each person who approved or rejected it (see HistoryRows.page). */
export function decidedByTerm(userId: string): string {
  return `decided-by:${userId.toLowerCase()}`;
}

/**
 * A person who approved or rejected the deletion request of History row `id`, on that row (in the decision's
 * transaction): a word of their name then finds it, as a word of its requester's does, for whoever may see it;
 * their names are read from Slack as a maker's are (`history_people`).
 */
export async function addDecider(db: Kysely<Tables>, id: string, deciderId: string) {
  const row = await db.selectFrom('history').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return;
  await addTerms(db, row, [decidedByTerm(deciderId)], { ifAbsent: true });
  await db
    .insertInto('history_people')
    .values({ team_id: row.team_id, user_id: deciderId, names: null, named_at: null })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .execute();
}

async function addTerms(
  db: Kysely<Tables>,
  row: Pick<Tables['history'], 'id' | 'team_id' | 'kind' | 'actor_id' | 'made_at'>,
  terms: readonly string[],
  options: { ifAbsent?: boolean } = {},
) {
  if (terms.length === 0) return;
  const values = [...new Set(terms.map((t) => t.toLowerCase()))].map((term) => ({
    history_id: row.id,
    term,
    team_id: row.team_id,
    kind: row.kind,
    actor_id: row.actor_id,
    made_at: row.made_at,
  }));
  // Under SQLite's 999 parameters a statement (6 a row): a deletion of 1,000 customers is several.
  for (let start = 0; start < values.length; start += 150) {
    let insert = db.insertInto('history_terms').values(values.slice(start, start + 150));
    if (options.ifAbsent) insert = insert.onConflict((oc) => oc.columns(['history_id', 'term']).doNothing());
    await insert.execute();
  }
}
