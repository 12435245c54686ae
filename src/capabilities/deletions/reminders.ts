import type { WebClient } from '@slack/web-api';
import type { WorkBudget } from '../../platform/slack/admission/work-budget.js';
import type { CapabilityDeps } from '../../deps.js';
import { message, section, type MessageContent } from '../../platform/blocks/blocks.js';
import { sendDirectMessage } from '../../platform/blocks/direct-message.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import { failedCallOutcome } from '../../platform/slack/web-api/slack-call-outcome.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import type { ReminderKind } from '../../platform/store/deletion-reminders.js';
import type { DeletionContext, DeletionSettings } from './deletion-context.js';
import { sweeperTiming } from './deletion-sweeper.js';
import { approvalProgress, approvalsMissing, customerCount } from './messages.js';
import type { Job } from '../../platform/ops/lifecycle/scheduler.js';

const HOUR_MS = 3_600_000;
/** The requester is warned this long before the request expires (or at half its life, when that is shorter). */
export const EXPIRY_WARNING_HOURS = 4;

export interface ReminderOptions {
  /**
   * 0, or (tests only) TEST_CLOCK_OFFSET_HOURS or the time a test moved on: the reminders judge what is due this
   * far ahead of the clock, read at each sweep.
   */
  aheadMs: () => number;
  intervalMs: number;
  /** Each sweep counts as background work. */
  work: Pick<WorkBudget, 'track'>;
}

/** How long before expiry the requester is warned. */
export function expiryWarningMs(requestTtlHours: number): number {
  return Math.min(EXPIRY_WARNING_HOURS * HOUR_MS, (requestTtlHours * HOUR_MS) / 2);
}

/**
 * Sends what is due in one workspace (its requests, its settings, its Slack): one reminder in the approval
 * thread of each request pending for longer than DELETION_REMIND_AFTER_HOURS, naming who could still decide
 * it, and one DM to the requester of each request close to its expiry (what is due is judged by the
 * database's clock, as the request's times were written). Each is claimed in the database before it is sent,
 * so it goes once, from one replica, whatever restarts. One that Slack refused is given back and tried at the
 * next sweep; one that may have been posted (no answer in time) keeps its claim: it is never sent again
 * blindly.
 */
export async function sendDueReminders(
  ctx: DeletionContext,
  slack: WebClient,
  teamId: string,
  settings: DeletionSettings,
  aheadMs = 0,
): Promise<void> {
  const reminders = ctx.store.deletionReminders;
  const within = { ctx, slack, teamId };
  if (settings.remindAfterHours > 0) {
    const pendingForMs = settings.remindAfterHours * HOUR_MS;
    for (const id of await reminders.due(teamId, 'reminder', { pendingForMs }, aheadMs))
      await sendOnce(within, id, 'reminder', (r) => postReminder(ctx, slack, settings, r));
  }
  const expiringWithinMs = expiryWarningMs(settings.requestTtlHours);
  for (const id of await reminders.due(teamId, 'expiry-warning', { expiringWithinMs }, aheadMs))
    await sendOnce(within, id, 'expiry-warning', (r) =>
      sendDirectMessage(slack, r.requesterId, expiryWarning(r, settings, new Date(Date.now() + aheadMs)), ctx.logger),
    );
}

/** How a reminder's post ended: `given-up` is a refusal no later try can change (logged, not tried again). */
type ReminderPost = 'sent' | 'refused' | 'unknown' | 'given-up';

async function sendOnce(
  { ctx, teamId }: { ctx: DeletionContext; teamId: string },
  id: string,
  kind: ReminderKind,
  send: (request: DeletionRequest) => Promise<ReminderPost>,
): Promise<void> {
  const reminders = ctx.store.deletionReminders;
  if (!(await reminders.claim(teamId, id, kind))) return; // another replica has it
  let post: ReminderPost = 'refused';
  try {
    const request = await ctx.store.deletionRequests.forTeam(teamId).get(id);
    post = request?.status === 'pending' ? await send(request) : 'sent'; // decided meanwhile: nothing to say
    if (post === 'sent') ctx.logger.info({ requestId: id, kind }, 'deletion request reminder sent');
    if (post === 'unknown')
      ctx.logger.warn(
        { requestId: id, kind },
        'Slack did not confirm the deletion request reminder; it may have been posted, so it is not sent again',
      );
  } finally {
    // Refused by Slack (so not posted), or the request could not be read: given back for the next sweep.
    if (post === 'refused') await reminders.release(teamId, id, kind).catch(() => undefined);
  }
}

/** Slack answers that no retry can change: the reminder is given up (and logged) rather than tried for ever. */
const REMINDER_CANNOT_POST = new Set(['not_in_channel', 'channel_not_found', 'is_archived', 'invalid_auth']);

/** The reminder goes into the approval message's thread (or the channel, if its id was never stored). */
async function postReminder(
  ctx: DeletionContext,
  slack: WebClient,
  settings: DeletionSettings,
  r: DeletionRequest,
): Promise<ReminderPost> {
  try {
    await slack.chat.postMessage({
      channel: r.approvalChannelId ?? settings.approvalChannelId,
      ...(r.approvalMessageTs ? { thread_ts: r.approvalMessageTs } : {}),
      ...reminderMessage(r, settings),
    });
    return 'sent';
  } catch (error) {
    const code = slackErrorCode(error);
    if (code && REMINDER_CANNOT_POST.has(code)) {
      ctx.logger.error({ err: error, requestId: r.id }, 'the reminder cannot be posted; given up');
      return 'given-up';
    }
    const outcome = failedCallOutcome(error);
    if (outcome === 'refused')
      ctx.logger.warn({ err: error, requestId: r.id }, 'could not post the reminder; will try again');
    else ctx.logger.warn({ err: error, requestId: r.id }, 'the reminder may or may not have been posted');
    return outcome;
  }
}

/**
 * Who could still decide: the approvers named one by one, but not the requester and not those who approved
 * already, and each user group as a group (a mention of the group, which Slack expands for its members).
 */
export function stillToDecide(r: DeletionRequest, settings: DeletionSettings): string[] {
  const approvers = r.approvers ?? settings.approvers; // those it was opened with
  const users = approvers.users.filter((u) => u !== r.requesterId && !r.approverIds.includes(u));
  return [...users.map((u) => `<@${u}>`), ...approvers.userGroups.map((g) => `<!subteam^${g}>`)];
}

export function reminderMessage(r: DeletionRequest, settings: DeletionSettings): MessageContent {
  const who = stillToDecide(r, settings);
  const progress = approvalProgress(r);
  const missing = approvalsMissing(r);
  const asks = who.length
    ? `${who.join(', ')}: please approve or reject it${missing > 1 ? ` (${missing} more approvals are needed)` : ''}.`
    : 'Nobody else on the list of approvers can decide it: ask a settings admin or the operator to add approvers.';
  return message(`Reminder: deletion request ${r.id} still waits for approval`, [
    section(
      `:bell: *Reminder:* request *${r.id}* of <@${r.requesterId}> to delete *${customerCount(r.customerIds.length)}* has waited since ${slackDate(r.createdAt)} and expires ${slackDate(r.expiresAt)}.${progress ? ` ${progress}.` : ''}\n${asks}`,
    ),
  ]);
}

export function expiryWarning(r: DeletionRequest, settings: DeletionSettings, now: Date): MessageContent {
  const hours = Math.max(1, Math.round((r.expiresAt.getTime() - now.getTime()) / HOUR_MS));
  const progress = approvalProgress(r);
  return message(`Your deletion request ${r.id} expires in about ${hours} hour${hours === 1 ? '' : 's'}`, [
    section(
      `:hourglass: Your request *${r.id}* to delete *${customerCount(r.customerIds.length)}* expires ${slackDate(r.expiresAt)} (in about ${hours} hour${hours === 1 ? '' : 's'}) without ${r.approvalsNeeded > 1 ? 'enough approvals' : 'a decision'}${progress ? ` (${progress})` : ''}. Ask an approver in <#${r.approvalChannelId ?? settings.approvalChannelId}> to decide it; once it expires nothing is deleted and you would have to ask again.`,
    ),
  ]);
}

/**
 * Sends what is due in every workspace with pending requests, each under its own settings in force at the
 * sweep (nothing where deletion is not set up) and with its own token (a workspace that is gone is skipped,
 * and logged once): at once (what a previous process left due) and then every interval. A workspace whose
 * sweep fails is logged and the others still get theirs. A job of the scheduler.
 */
export function remindersJob(ctx: DeletionContext, options: ReminderOptions): Job {
  const sweepWorkspace = async (teamId: string, aheadMs: number) => {
    const configured = ctx.settingsIn(teamId);
    if (!configured.ok) return;
    const slack = await ctx.reach.slack(teamId);
    if (slack) await sendDueReminders(ctx, slack, teamId, configured.settings, aheadMs);
  };
  return {
    name: 'deletion reminders',
    everyMs: options.intervalMs,
    run: async () => {
      const aheadMs = options.aheadMs(); // one clock for the whole sweep
      for (const teamId of await ctx.store.deletionRequests.teamsWithPending())
        await options.work.track(
          sweepWorkspace(teamId, aheadMs).catch((error: unknown) =>
            ctx.logger.warn({ err: error, team: teamId }, 'reminder sweep of a workspace failed; will try again'),
          ),
        );
    },
    failed: (error) => ctx.logger.warn({ err: error }, 'reminder sweep failed; will try again'),
  };
}

/**
 * The reminders as the app's background work. Their clock is the real one unless TEST_CLOCK_OFFSET_HOURS
 * moves it ahead (tests only, and said in the log at start) or a test moves it on (remindersAheadMs).
 */
export function reminderJob(
  ctx: DeletionContext,
  deps: Pick<CapabilityDeps, 'config' | 'work' | 'remindersAheadMs'>,
): Job {
  if (deps.config.testClockOffsetHours > 0)
    ctx.logger.warn(
      { testClockOffsetHours: deps.config.testClockOffsetHours },
      'TEST_CLOCK_OFFSET_HOURS is set: the deletion reminders run ahead of the real clock (tests only)',
    );
  return remindersJob(ctx, {
    aheadMs: deps.remindersAheadMs,
    intervalMs: sweeperTiming(deps.config.mint.timeoutMs).intervalMs,
    work: deps.work,
  });
}
