import type { Job } from '../ops/lifecycle/scheduler.js';
import type { Logger } from '../ops/telemetry/create-logger.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * The slow catch-up a feed asks for (SQLite: other processes on the same file), as a job of the scheduler;
 * none on PostgreSQL, whose feed catches up when its connection comes back.
 */
export function changeFeedCatchUpJob(feed: ChangeFeed, logger: Logger): Job | undefined {
  if (feed.catchUpEveryMs === undefined) return undefined;
  let quietUntil = 0;
  return {
    name: 'changes made by other processes caught up',
    everyMs: feed.catchUpEveryMs,
    atStart: false,
    run: () => feed.catchUp(),
    failed: (error) => {
      if (Date.now() < quietUntil) return;
      quietUntil = Date.now() + 60_000; // the database away for a while: one line a minute
      logger.warn({ err: error }, 'could not compare what this process keeps with the database; it stays in use');
    },
  };
}
