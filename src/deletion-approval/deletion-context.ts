import type { WebClient } from '@slack/web-api';
import type { HomeTab } from '../deps.js';
import type { Logger } from '../logging/create-logger.js';
import type { MintApiClient } from '../mint-api/mint-api-client.js';
import type { DeletionRequest } from '../store/deletion-requests.js';
import type { Store } from '../store/store.js';
import type { Approvers } from '../approvers/approvers.js';
import type { DeletionSettings } from './deletion-settings.js';

/**
 * What the deletion flow works with. `settings` are those in force now (read afresh at each use: admins
 * change them from App Home), undefined when deletion is not set up (`missingSettings` says what is missing).
 */
export interface DeletionContext {
  store: Store;
  mintApi: MintApiClient;
  logger: Logger;
  client: WebClient;
  /** For background posts that may wait out Slack's rate limits (the full list in a thread). */
  patientClient: WebClient;
  readonly settings: DeletionSettings | undefined;
  readonly missingSettings: string[];
  /** Whether settings admins can set up what is missing from App Home (not with SETTINGS_SOURCE=env). */
  readonly settingsInSlack: boolean;
  approvers: Approvers;
  /** Home tabs to bring up to date after a change (requester and approvers). */
  home: HomeTab;
  /**
   * Signs and checks the private_metadata of decision views (see decision-metadata.ts): derived from the
   * bot token, so the same on every replica.
   */
  decisionKey: Buffer;
  /** Seals workflow execution tokens kept while a request waits (see workflow-steps/sealed-token.ts). */
  stepTokenKey: Buffer;
}

/**
 * Whether someone is an approver of `request` (the approvers it was opened with), or of requests in general
 * when none is named, for Home refreshes (a cached answer is fine there).
 */
export function isApprover(
  ctx: Pick<DeletionContext, 'approvers'>,
  request?: Pick<DeletionRequest, 'approvers'>,
): (userId: string) => Promise<boolean> {
  return async (userId) => (await ctx.approvers.check(userId, { among: request?.approvers })).approver;
}
