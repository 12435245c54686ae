import type { FakeSlack } from './fake-slack.js';
import { TEST_APP_ID, TEST_CHANNEL_ID, TEST_TEAM_ID, TEST_USER_ID } from './slack-ids.js';

/** Where Slack's per-request URLs and triggers come from (the fake Slack, or a stand-in for load tests). */
export type SlackUrls = Pick<FakeSlack, 'responseUrl' | 'triggerId'>;

/** The fields of a slash command request (https://api.slack.com/interactivity/slash-commands). */
export function slashCommand(
  slack: SlackUrls,
  text: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
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
export function viewSubmission(
  view: SlackView,
  values: Record<string, unknown>,
  userId = TEST_USER_ID,
  responseUrls: unknown[] = [],
): Record<string, unknown> {
  return {
    type: 'view_submission',
    team: { id: TEST_TEAM_ID, domain: 'test' },
    user: user(userId),
    api_app_id: TEST_APP_ID,
    token: 'deprecated-verification-token',
    trigger_id: 'not-used-by-submissions',
    view: {
      ...view,
      team_id: TEST_TEAM_ID,
      type: 'modal',
      state: { values },
      hash: view.hash ?? 'hash',
      root_view_id: view.id,
      app_id: TEST_APP_ID,
      bot_id: 'B0BOT0001',
    },
    response_urls: responseUrls,
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

/** Slack's `slack#/types/user_context` value for the person who ran a workflow. */
export function userContext(userId = TEST_USER_ID): { id: string; secret: string } {
  return { id: userId, secret: `NmM0ZGI3${userId}` };
}

/** A message shortcut on a message (https://api.slack.com/reference/interaction-payloads/shortcuts). */
export function messageShortcut(
  slack: FakeSlack,
  callbackId: string,
  message: { ts: string; text: string; user?: string },
  channelId = TEST_CHANNEL_ID,
  userId = TEST_USER_ID,
): Record<string, unknown> {
  return {
    type: 'message_action',
    token: 'deprecated-verification-token',
    action_ts: `${Date.now() / 1000}`,
    team: { id: TEST_TEAM_ID, domain: 'test' },
    user: user(userId),
    channel: { id: channelId, name: 'general' },
    is_enterprise_install: false,
    callback_id: callbackId,
    trigger_id: slack.triggerId(),
    response_url: slack.responseUrl(),
    message_ts: message.ts,
    message: { type: 'message', user: message.user ?? 'U0BOB0001', ts: message.ts, text: message.text },
  };
}

/** A message as the app posted it, with the ts and channel Slack gave it. */
export interface PostedMessage {
  text?: string;
  blocks?: Array<Record<string, any>>;
  ts?: string;
  channelId?: string;
}

/** A block_actions payload for a button in a message (https://api.slack.com/reference/interaction-payloads/block-actions). */
export function buttonClick(
  slack: FakeSlack,
  message: PostedMessage,
  actionId: string,
  userId = TEST_USER_ID,
): Record<string, unknown> {
  const block = message.blocks?.find(
    (b) => b.type === 'actions' && (b.elements as Array<Record<string, any>>).some((e) => e.action_id === actionId),
  );
  const button = (block?.elements as Array<Record<string, any>> | undefined)?.find((e) => e.action_id === actionId);
  if (!block || !button) throw new Error(`the message has no button ${actionId}`);
  const channelId = message.channelId ?? TEST_CHANNEL_ID;
  const ts = message.ts ?? '1700000000.000100';
  return {
    type: 'block_actions',
    user: user(userId),
    api_app_id: TEST_APP_ID,
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: ts, channel_id: channelId, is_ephemeral: false },
    trigger_id: slack.triggerId(),
    team: { id: TEST_TEAM_ID, domain: 'test' },
    channel: { id: channelId, name: 'general' },
    message: { type: 'message', user: 'U0BOT0001', ts, text: message.text, blocks: message.blocks },
    response_url: slack.responseUrl(),
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: block.block_id ?? 'b',
        value: button.value,
        text: button.text,
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/**
 * A block_actions payload for a button in a modal or a Home tab (the view comes back with its id, hash and
 * state). `value` picks one of several buttons with the same action_id (one per request, say).
 */
export function viewButtonClick(
  slack: FakeSlack,
  view: SlackView,
  actionId: string,
  values: Record<string, unknown>,
  userId = TEST_USER_ID,
  value?: string,
): Record<string, unknown> {
  const matches = (e: Record<string, any>) => e.action_id === actionId && (value === undefined || e.value === value);
  // A button in an actions block, or a section's accessory.
  const block = (view.blocks as Array<Record<string, any>> | undefined)?.find(
    (b) =>
      (b.type === 'actions' && (b.elements as Array<Record<string, any>>).some((element) => matches(element))) ||
      (b.type === 'section' && b.accessory && matches(b.accessory)),
  );
  if (!block) throw new Error(`the view has no button ${actionId}${value ? ` for ${value}` : ''}`);
  const button =
    block.type === 'section'
      ? (block.accessory as Record<string, any>)
      : (block.elements as Array<Record<string, any>>).find((element) => matches(element));
  return {
    type: 'block_actions',
    user: user(userId),
    api_app_id: TEST_APP_ID,
    token: 'deprecated-verification-token',
    container: { type: 'view', view_id: view.id },
    trigger_id: slack.triggerId(),
    team: { id: TEST_TEAM_ID, domain: 'test' },
    view: {
      ...view,
      team_id: TEST_TEAM_ID,
      type: view.type ?? 'modal',
      state: { values },
      hash: view.hash ?? 'hash',
      root_view_id: view.id,
      app_id: TEST_APP_ID,
    },
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: block.block_id ?? 'b',
        value: button?.value,
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/** An Events API callback (https://api.slack.com/apis/events-api#callback-field), e.g. app_home_opened. */
export function eventCallback(event: Record<string, unknown>): Record<string, unknown> {
  return {
    token: 'deprecated-verification-token',
    team_id: TEST_TEAM_ID,
    api_app_id: TEST_APP_ID,
    event: { event_ts: `${Date.now() / 1000}`, ...event },
    type: 'event_callback',
    event_id: `Ev${Date.now()}${Math.floor(Math.random() * 1e6)}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: TEST_TEAM_ID, user_id: 'U0BOT0001', is_bot: true }],
  };
}

/**
 * The same payload as if sent from another workspace: every mention of the test workspace's id (team,
 * user's team, view's team, authorizations) names `teamId` instead. Ids the payload names on purpose
 * (action values, view metadata) are left alone: that is what a forged request does.
 */
export function inTeam<T>(payload: T, teamId: string): T {
  if (teamId === TEST_TEAM_ID) return payload;
  return JSON.parse(
    JSON.stringify(payload, (key, value: unknown) => (isTeamKey(key) && value === TEST_TEAM_ID ? teamId : value)),
  ) as T;
}

function isTeamKey(key: string): boolean {
  return key === 'team_id' || key === 'id' || key === 'user_team';
}
