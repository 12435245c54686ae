import type { WebClient } from '@slack/web-api';
import type { CapabilityStore, HomeTab } from '../../deps.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import type { MintApiClient } from '../../platform/mint/mint-api-client.js';
import type { OfferedDecisions, OfferingView } from '../../platform/blocks/offered-decisions.js';
import type { Approvers } from '../../tenancy/workspaces/approvers.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import type { CapabilityDeps } from '../../deps.js';
import { WorkspaceReach } from './workspace-reach.js';
import { type DecisionKeys, decisionMetadataKeys } from './decision-rules.js';
import { type StepTokenSeal, stepTokenSeal } from '../../platform/slack/workflow-steps/sealed-token.js';
import type { DeletionApprovers, DeletionQuorum } from '../../platform/ops/config/config.js';
import type { WorkspaceSettings } from '../../tenancy/workspaces/settings-model.js';

/**
 * What the deletion flow works with. Everything is per workspace (team id): its requests (read and changed
 * only through `store.deletionRequests.forTeam(teamId)`), its settings, approvers, Slack token and Mint
 * account. A request from Slack works in the workspace it was signed for, whatever ids it names.
 */
export interface DeletionContext {
  store: CapabilityStore;
  logger: Logger;
  /**
   * The deletion settings in force in a workspace (read afresh at each use: admins change them from App Home),
   * or what is missing while deletion is not set up there. (Undefined: the app's own workspace, when Slack has
   * not said yet which that is: the environment's settings.)
   */
  settingsIn(teamId: string | undefined): DeletionSettingsCheck;
  /** Who sets up what a workspace misses (see SetUpBy). */
  readonly setUpBy: SetUpBy;
  approvers: Approvers;
  /** Home tabs to bring up to date after a change (requester and approvers). */
  home: HomeTab;
  /**
   * The bot's client in a workspace, with that workspace's token, for posts no request carries a client for
   * (background work, long threads): it waits out Slack's rate limits. Throws WorkspaceGone when the
   * workspace has no installation.
   */
  slackIn(teamId: string): Promise<WebClient>;
  /** The same for background work: a workspace that is gone is skipped (logged once), not an error. */
  reach: WorkspaceReach;
  /** The Mint client of the workspace's own account; a refusal saying how to connect one when it has none. */
  mintIn(teamId: string): Promise<MintApiClient>;
  /**
   * Sign and check the private_metadata of decision views (see decision-rules.ts): from SECRETS_KEYS, so
   * the same on every replica.
   */
  decisionKeys: DecisionKeys;
  /** Where another capability's view (History's Details) offers this capability's decisions, and is shown again. */
  decisions: OfferedDecisions;
  /** Seals workflow execution tokens kept while a request waits (see platform/slack/workflow-steps/sealed-token.ts). */
  stepTokens: StepTokenSeal;
  /** How the app calls Slack: the waiting step's report waits as long as the app's other calls before trying again. */
  slackCalls: Pick<CapabilityDeps['slackCalls'], 'retryWaitMs'>;
}

/** The deletion flow's context, made once from what the app gives the capability. */
export function deletionContext(deps: CapabilityDeps): DeletionContext {
  const logger = deps.logger.child({ capability: 'deletion-approval' });
  const slackIn = (teamId: string) => deps.workspaces.slack(teamId);
  return {
    store: deps.store,
    logger,
    settingsIn: (teamId) => deletionSettings(deps.settings.current(teamId).values),
    setUpBy: deps.config.distribution ? 'admin' : deps.settings.envOnly ? 'operator' : 'operator or admin',
    approvers: deps.approvers,
    home: deps.home,
    slackIn,
    reach: new WorkspaceReach(slackIn, logger),
    mintIn: (teamId) => deps.mintAccounts.forTeam(teamId),
    decisionKeys: decisionMetadataKeys(deps.config.secretKeys, deps.config.slack.keySource),
    stepTokens: stepTokenSeal(deps.config.secretKeys, deps.config.slack.keySource),
    decisions: deps.decisions,
    slackCalls: deps.slackCalls,
  };
}

/** The settings of the workspace, or the refusal that says deletion is not set up there. */
export function settingsOrRefusal(ctx: Pick<DeletionContext, 'settingsIn' | 'setUpBy'>, teamId: string) {
  const configured = ctx.settingsIn(teamId);
  if (configured.ok) return configured.settings;
  throw refused(notConfiguredText(configured.missing, ctx.setUpBy));
}

/** The longest reason a request may give: the approvers read it whole. */
export const MAX_REASON_LENGTH = 1000;

/** The deletion settings of a workspace where deletion is set up (see deletionSettings). */
export interface DeletionSettings {
  approvalChannelId: string;
  approvers: DeletionApprovers;
  requestTtlHours: number;
  quorum: DeletionQuorum;
  remindAfterHours: number;
}

/** The deletion settings of a workspace, or what is missing there. */
export type DeletionSettingsCheck = { ok: true; settings: DeletionSettings } | { ok: false; missing: string[] };

/**
 * The deletion settings in force, or what is missing: deletion needs an approval channel and at least one
 * approver. (Read afresh for each request: admins change them from App Home.)
 */
export function deletionSettings(settings: WorkspaceSettings): DeletionSettingsCheck {
  const { approvalChannelId, approvers, requestTtlHours, quorum, remindAfterHours } = settings;
  const missing = [
    ...(approvalChannelId ? [] : ['APPROVAL_CHANNEL_ID']),
    ...(approvers.users.length + approvers.userGroups.length > 0 ? [] : ['DELETION_APPROVERS']),
  ];
  if (!approvalChannelId || missing.length > 0) return { ok: false, missing };
  return { ok: true, settings: { approvalChannelId, approvers, requestTtlHours, quorum, remindAfterHours } };
}

/**
 * Who sets up what a workspace misses: the operator (SETTINGS_SOURCE=env), the operator or a settings admin,
 * or, in distribution mode, where a customer never sees the operator's environment, a settings admin.
 */
export type SetUpBy = 'operator' | 'operator or admin' | 'admin';

/** Who can set up what is missing, in words for the person asking. */
export function whoSetsUp(missing: readonly string[], by: SetUpBy): string {
  if (by === 'admin')
    return "a settings admin of this workspace (its admins and owners, or whom they named) must choose the approval channel and the approvers in Settings on the app's Home";
  return `the app's operator must set ${missing.join(' and ')}${by === 'operator or admin' ? ", or a settings admin choose them in Settings on the app's Home" : ''}`;
}

export function notConfiguredText(missing: readonly string[], by: SetUpBy): string {
  return `:no_entry: Customer deletion is not set up in this workspace: ${whoSetsUp(missing, by)} (the channel where requests wait for approval, and who may approve). Nothing was recorded.`;
}

/**
 * The view a decision was offered on (History's Details), shown again by the capability that made it, as
 * `userId` may now see it. Never fails the decision it follows: a view that cannot be shown again is logged.
 */
export async function showOfferingAgain(
  ctx: Pick<DeletionContext, 'decisions' | 'logger'>,
  at: { client: WebClient; teamId: string; userId: string },
  view: OfferingView,
): Promise<void> {
  await ctx.decisions
    .showAgain({ ...at, view })
    .catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not show the view beneath a decision again'));
}
