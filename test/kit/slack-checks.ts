import { expect } from 'vitest';
import type { SlackDriver } from './slack-driver.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from './app-process.js';
import { messageProblems } from './block-kit-limits.js';
import type { FakeSlack } from './fake-slack.js';

/** Nothing the app sent was refused by the fake Slack (Block Kit limits, tokens, triggers...). */
export function expectNoRejectedSlackCalls(slack: FakeSlack): void {
  expect(slack.failedCalls.map((c) => ({ method: c.method, answer: c.answer }))).toEqual([]);
}

/** Every message the app posted to a response_url is one Slack would accept. */
export function expectNoRejectedResponses(slack: FakeSlack): void {
  expect(slack.responses.map((r) => messageProblems(r.body)).flat()).toEqual([]);
}

/**
 * No secret in anything the app sent to Slack (apart from the token a Web API call authenticates with),
 * nor in anything it logged: the app's own secrets, every workflow execution token Slack handed it, and the
 * test's `more` (a Mint API key a person typed into a form, say).
 */
export function expectNoSecretsLeaked(slack: FakeSlack, app: SlackDriver, more: readonly string[] = []): void {
  const params = slack.calls.map(({ params: { token: _authentication, ...rest } }) => rest);
  const sentToSlack = JSON.stringify([params, slack.responses]);
  const secrets = [
    TEST_MINT_API_KEY,
    TEST_SIGNING_SECRET,
    slack.botToken,
    slack.appToken,
    ...slack.issuedExecutionTokens,
    ...more,
  ];
  for (const secret of secrets) {
    expect(sentToSlack).not.toContain(secret);
    expect(app.logs).not.toContain(secret);
  }
}

/** All the text of a view or message, for "does it say X" checks. */
export function textOf(surface: unknown): string {
  return (JSON.stringify(surface) ?? '').replace(/\\n/g, '\n');
}
