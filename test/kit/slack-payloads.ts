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
