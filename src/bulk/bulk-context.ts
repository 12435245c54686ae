import type { WebClient } from '@slack/web-api';
import type { Slots } from '../admission/slots.js';
import type { WorkBudget } from '../admission/work-budget.js';
import type { Approvers } from '../approvers/approvers.js';
import type { HomeTab } from '../deps.js';
import type { Readiness } from '../lifecycle/readiness.js';
import type { Logger } from '../logging/create-logger.js';
import type { Scrubber } from '../logging/secret-scrubber.js';
import type { MintApiClient } from '../mint-api/mint-api-client.js';
import type { Store } from '../store/store.js';

/** What the bulk flow works with. */
export interface BulkContext {
  store: Store;
  mintApi: MintApiClient;
  logger: Logger;
  /** The app's client: fails fast, for what a person waits on. */
  client: WebClient;
  /** For background posts (progress, results) that may wait out Slack's rate limits. */
  patientClient: WebClient;
  approvers: Approvers;
  home: HomeTab;
  work: WorkBudget;
  readiness: Readiness;
  /** The one bot token of single-workspace mode (reads attached files); undefined in distribution mode. */
  botToken: string | undefined;
  slackApiUrl: string;
  /** Mint calls this process makes at once for bulk jobs now (the settings' bulk concurrency: it may change). */
  readonly concurrency: number;
  /** The most it may ever be (the worker keeps this many slots, and uses the first `concurrency`). */
  maxConcurrency: number;
  /** The CSV files this process checks at once (BULK_CHECK_SLOTS). */
  checkSlots: Slots;
  /** The app's secret scrubber, for what is stored where the database's cannot see (a draft's packed rows). */
  scrub: Scrubber;
  /** A Mint operation's whole time budget: a row sent longer ago than twice this cannot still be under way. */
  mintTimeoutMs: number;
}

/** Who may pause, resume or cancel a job: its requester, or an approver. */
export async function mayControl(ctx: Pick<BulkContext, 'approvers'>, requesterId: string, userId: string) {
  if (userId === requesterId) return { allowed: true as const };
  const check = await ctx.approvers.check(userId, { askSlack: 'before refusing' });
  return check.approver ? { allowed: true as const } : { allowed: false as const, problem: check.problem };
}
