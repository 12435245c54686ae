import type { CapabilityStore } from '../../deps.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';
import type { WorkBudget } from '../../platform/slack/admission/work-budget.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import { WorkspaceGone, type Workspaces } from '../../tenancy/workspaces/workspaces.js';

const DAY_MS = 86_400_000;
/** Rows pruned per batch: each a short transaction of its own. */
const PRUNE_BATCH = 1_000;
const RECHECK_DONE_MS = 3_600_000;

/** Batches of the backfill one run copies before it lets the next run (and requests) go first. */
const BACKFILL_BATCHES_PER_RUN = 20;

export interface HistoryJobDeps {
  store: CapabilityStore;
  logger: Logger;
  work: Pick<WorkBudget, 'track'>;
}

/** People whose names one run reads from Slack (users.info is Tier 4: 100 a minute and more). */
const NAMES_PER_RUN = 40;
/** A name Slack could not give is asked again after this long, not at every run. */
const NAME_RETRY_MS = 10 * 60_000;
/** A workspace the app no longer serves is asked about again after this long (it may have installed it again). */
const GONE_RETRY_MS = DAY_MS;
/** Slack's answers meaning the workspace's token no longer works at all (not one person's problem). */
const TOKEN_GONE_CODES = new Set(['token_revoked', 'invalid_auth', 'account_inactive', 'not_authed', 'team_disabled']);

/**
 * Copies the audit log written before History existed into it: a few batches a run, every few seconds, until
 * done (then each run ends at once). The position is kept in the database: a restart resumes there, and two
 * replicas copying at once copy each entry once.
 */
export function historyBackfillJob(deps: HistoryJobDeps, everyMs = 5_000): Job {
  // When the copy was last seen done: it is looked at again hourly, since entries that had no workspace start it
  // over once they are given one (CapabilityStore.adoptRowsWithoutWorkspace).
  let finishedAt: number | undefined;
  return {
    name: 'history backfill from the audit log',
    everyMs,
    // Not at start: the first seconds belong to the requests that come with a start (and a deploy).
    atStart: false,
    run: async () => {
      if (finishedAt !== undefined && Date.now() - finishedAt < RECHECK_DONE_MS) return;
      for (let batch = 0; batch < BACKFILL_BATCHES_PER_RUN; batch += 1) {
        const done = await deps.work.track(deps.store.historyBackfill.backfillBatch());
        if (done.finished) {
          if (finishedAt === undefined) deps.logger.info('history holds the audit log written before it');
          finishedAt = Date.now();
          return;
        }
        await new Promise((resolve) => setImmediate(resolve)); // requests go between batches
      }
    },
    failed: (error) => deps.logger.warn({ err: error }, 'history backfill failed; will go on from where it stopped'),
  };
}

/**
 * History follows the audit log's retention (AUDIT_RETENTION_DAYS): what the audit log no longer keeps, History
 * does not show. Hourly, oldest first, in batches.
 */
export function historyRetentionJob(deps: HistoryJobDeps, retentionDays: number | undefined): Job | undefined {
  if (retentionDays === undefined) return undefined;
  return {
    name: 'history retention',
    everyMs: 60 * 60 * 1000,
    run: () => pruneHistory(deps, retentionDays),
    failed: (error) => deps.logger.warn({ err: error }, 'history pruning failed; will try again'),
  };
}

/** Deletes History's rows older than `retentionDays`; returns how many. */
export async function pruneHistory(deps: HistoryJobDeps, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  let pruned = 0;
  for (;;) {
    const deleted = await deps.work.track(deps.store.history.pruneBatch(before, PRUNE_BATCH));
    pruned += deleted;
    if (deleted < PRUNE_BATCH) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (pruned > 0) deps.logger.info({ pruned, before: before.toISOString() }, 'history pruned with the audit log');
  return pruned;
}

/**
 * Reads from Slack (users.info) the names of the people who made History's rows, and again daily, so that a word
 * of a person's real name, display name or handle finds what they made (HistoryPeople.peopleNamed). A person
 * Slack does not know keeps no name; one Slack could not answer for is asked again later.
 */
export function historyNamesJob(
  deps: HistoryJobDeps & { workspaces: Pick<Workspaces, 'slack'> },
  everyMs = 60_000,
): Job {
  return {
    name: 'history names from Slack',
    everyMs,
    // Not at start, as the backfill: the first seconds belong to the requests that come with a start.
    atStart: false,
    run: async () => {
      const people = await deps.work.track(deps.store.historyPeople.peopleToName(NAMES_PER_RUN));
      const gone = new Set<string>();
      for (const person of people) {
        if (gone.has(person.teamId)) continue;
        try {
          const client = await deps.workspaces.slack(person.teamId);
          const { user } = await client.users.info({ user: person.userId });
          const names = [user?.real_name, user?.profile?.display_name, user?.name];
          await deps.store.historyPeople.setNames(
            person.teamId,
            person.userId,
            names.filter((name) => typeof name === 'string'),
          );
        } catch (error) {
          if (slackErrorCode(error) === 'user_not_found')
            await deps.store.historyPeople.setNames(person.teamId, person.userId, []);
          else if (error instanceof WorkspaceGone || TOKEN_GONE_CODES.has(slackErrorCode(error) ?? '')) {
            // Nobody's name can be read there: the whole workspace waits a day, with one line said.
            gone.add(person.teamId);
            deps.logger.info(
              { team: person.teamId, reason: slackErrorCode(error) ?? 'no installation' },
              'History names not read for a workspace the app no longer serves; asked again in a day',
            );
            await deps.store.historyPeople.postponeNamesOf(person.teamId, GONE_RETRY_MS);
          } else {
            deps.logger.warn({ err: error, user: person.userId }, 'could not read a name for History; will try again');
            await deps.store.historyPeople.setNames(person.teamId, person.userId, undefined, new Date(), NAME_RETRY_MS);
          }
        }
      }
    },
    failed: (error) => deps.logger.warn({ err: error }, 'reading names for History failed; will try again'),
  };
}
