import type { Receiver } from '@slack/bolt';

/**
 * Slack in the same process as the app, for the listener tests' fast tier (test/kit/listener-app.ts): Bolt takes
 * its requests from `receiver` (as Bolt's own tests feed an App) instead of HTTP or Socket Mode, and, when `fetch` is
 * given, every Web API call and response_url post goes to it instead of the network. Everything else is the app as it runs.
 */
export interface SlackInProcess {
  receiver: Receiver;
  fetch?: typeof fetch;
  /**
   * How long a Slack call may take before the app gives it up (SLACK_CALL_DEADLINE_MS, 10 s, unless given): a
   * test of a Slack that answers too late shortens it rather than wait the app's 10 s per call.
   */
  callDeadlineMs?: number;
  /**
   * The first wait before a failed Slack call is tried again (200 ms, or 1 s for the patient clients' background
   * posts, unless given): a test of a Slack that fails a call shortens it rather than wait.
   */
  retryWaitMs?: number;
  /**
   * How long the download of a file a user attached may take (15 s, unless given): a test of a download Slack
   * never finishes shortens it rather than wait 15 s.
   */
  downloadDeadlineMs?: number;
}
