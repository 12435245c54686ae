import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/create-logger.js';
import type { MintApiClient } from '../mint-api/mint-api-client.js';
import type { HomeRefresher } from '../home/home-publisher.js';
import type { Store } from '../store/store.js';
import type { Approvers } from './approvers.js';
import type { DeletionSettings } from './deletion-settings.js';

/** What the deletion flow works with; `settings` is undefined when deletion is not configured. */
export interface DeletionContext {
  store: Store;
  mintApi: MintApiClient;
  logger: Logger;
  client: WebClient;
  settings: DeletionSettings | undefined;
  missingSettings: string[];
  approvers: Approvers;
  /** Home tabs to bring up to date after a change (requester and approvers). */
  home?: HomeRefresher;
}
