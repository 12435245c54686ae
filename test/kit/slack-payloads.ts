import type { FakeSlack } from './fake-slack.js';
import { TEST_APP_ID, TEST_CHANNEL_ID, TEST_TEAM_ID, TEST_USER_ID } from './slack-ids.js';

/** The fields of a slash command request (https://api.slack.com/interactivity/slash-commands). */
export function slashCommand(slack: FakeSlack, text: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    token: 'deprecated-verification-token',
    team_id: TEST_TEAM_ID,
    team_domain: 'test',
    channel_id: TEST_CHANNEL_ID,
    channel_name: 'general',
    user_id: TEST_USER_ID,
    user_name: 'alice',
    command: '/mintlink',
    text,
    api_app_id: TEST_APP_ID,
    is_enterprise_install: 'false',
    response_url: slack.responseUrl(),
    trigger_id: slack.triggerId(),
    ...overrides,
  };
}

export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** A view as Slack hands it back in interaction payloads. */
export interface SlackView {
  id: string;
  hash?: string;
  callback_id?: string;
  private_metadata?: string;
  blocks?: unknown[];
  [key: string]: unknown;
}

const user = (id: string) => ({ id, username: id.toLowerCase(), name: id.toLowerCase(), team_id: TEST_TEAM_ID });

/** A view_submission payload (https://api.slack.com/reference/interaction-payloads/views). */
export function viewSubmission(view: SlackView, values: Record<string, unknown>, userId = TEST_USER_ID): Record<string, unknown> {
  return {
    type: 'view_submission',
    team: { id: TEST_TEAM_ID, domain: 'test' },
    user: user(userId),
    api_app_id: TEST_APP_ID,
    token: 'deprecated-verification-token',
    trigger_id: 'not-used-by-submissions',
    view: { ...view, team_id: TEST_TEAM_ID, type: 'modal', state: { values }, hash: view.hash ?? 'hash', root_view_id: view.id, app_id: TEST_APP_ID, bot_id: 'B0BOT0001' },
    response_urls: [],
    is_enterprise_install: false,
  };
}

/** A global shortcut payload. */
export function globalShortcut(slack: FakeSlack, callbackId: string, userId = TEST_USER_ID): Record<string, unknown> {
  return {
    type: 'shortcut',
    token: 'deprecated-verification-token',
    action_ts: `${Date.now() / 1000}`,
    team: { id: TEST_TEAM_ID, domain: 'test' },
    user: user(userId),
    is_enterprise_install: false,
    callback_id: callbackId,
    trigger_id: slack.triggerId(),
  };
}
