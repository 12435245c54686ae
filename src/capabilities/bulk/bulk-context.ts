import type { BulkheadPolicy } from 'cockatiel';
import type { WorkBudget } from '../../platform/slack/admission/work-budget.js';
import type { Approvers } from '../../tenancy/workspaces/approvers.js';
import type { CapabilityStore, HomeTab } from '../../deps.js';
import type { BulkPace } from '../../platform/ops/config/config.js';
import type { Readiness } from '../../platform/ops/health/readiness.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { Scrubber } from '../../platform/ops/telemetry/secret-scrubber.js';
import type { MintAccounts } from '../../tenancy/mint-accounts/mint-accounts.js';
import type { BulkJobs } from '../../platform/store/bulk-jobs/jobs.js';
import type { Workspaces } from '../../tenancy/workspaces/workspaces.js';
import type { GoneWorkspaces } from './gone-workspaces.js';

/** What the bulk flow works with. */
export interface BulkContext {
  store: CapabilityStore;
  logger: Logger;
  /**
   * Each workspace's bot client, for what no request carries a client for: progress messages, results files
   * (it waits out Slack's rate limits). Throws WorkspaceGone for a workspace without an installation.
   */
  workspaces: Pick<Workspaces, 'slack'>;
  /** Each workspace's Mint account: the worker sends a job's rows with the account of the job's workspace. */
  mintAccounts: Pick<MintAccounts, 'forTeam' | 'statusFor'>;
  approvers: Approvers;
  home: HomeTab;
  work: WorkBudget;
  readiness: Readiness;
  /** The one bot token of single-workspace mode (reads attached files when a request carries none). */
  botToken: string | undefined;
  slackApiUrl: string;
  /** How long the download of an attached CSV may take: downloadSlackFile's own (15 s) unless a test shortens it. */
  downloadDeadlineMs: number | undefined;
  /**
   * The most rows of one workspace's jobs being sent at once, by all processes together (that workspace's
   * bulk concurrency setting: it may change).
   */
  concurrencyIn(teamId: string): number;
  /** The most it may ever be: the slots each process keeps for the bulk jobs of all workspaces. */
  maxConcurrency: number;
  /**
   * The CSV files this process checks at once (BULK_CHECK_SLOTS): cockatiel's bulkhead with no queue, so a
   * Check that finds every slot taken is answered "busy" rather than waiting.
   */
  checkSlots: BulkheadPolicy;
  /** The app's secret scrubber, for what is stored where the database's cannot see (a draft's packed rows). */
  scrub: Scrubber;
  /** A Mint operation's whole time budget: a row sent longer ago than twice this cannot still be under way. */
  mintTimeoutMs: number;
  /** What a job paused because the Mint service refused the credentials tells people to do (see rowDisposition). */
  credentialsFix: string;
  /** Workspaces found without an installation: their background work is skipped, logged once. */
  gone: GoneWorkspaces;
  /** How often the background work looks again, and the least time between two updates of a progress message. */
  pace: BulkPace;
}

/**
 * The bulk jobs of one workspace: every read and change through it is limited to that workspace's jobs (see
 * BulkJobs.inTeam). Undefined only for a job recorded with no workspace (none once the app has started:
 * they are given the app's workspace), which background work still finishes.
 */
export function jobsIn(ctx: Pick<BulkContext, 'store'>, teamId: string | undefined): BulkJobs {
  return teamId === undefined ? ctx.store.bulkJobs : ctx.store.bulkJobs.inTeam(teamId);
}

/** Who may pause, resume or cancel a job: its requester, or an approver of the job's workspace. */
export async function mayControl(
  ctx: Pick<BulkContext, 'approvers'>,
  job: { requesterId: string; teamId: string | undefined },
  userId: string,
) {
  if (userId === job.requesterId) return { allowed: true as const };
  const check = await ctx.approvers.check(userId, { askSlack: 'before refusing', teamId: job.teamId });
  return check.approver ? { allowed: true as const } : { allowed: false as const, problem: check.problem };
}
