import type { Store } from '../../src/platform/store/store.js';
import type { SlackDriver } from './slack-driver.js';

/**
 * The real app however Slack's requests reach it (end to end: RunningApp; the fast tier: ListenerApp), with
 * its database at hand: what the flows of test/kit drive and read back.
 */
export type DrivenApp = SlackDriver & { openStore(): Store };
