/*
 * The templates capability over each transport, end to end: a command and clicks, as Slack sends them over HTTP
 * (signed) and Socket Mode. Every behaviour of the page is in browse-templates.test.ts.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEMO_CONTRACT_ID } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { useApp, useFakes, type Fakes } from '../../kit/fakes.js';
import type { RunningApp } from '../../kit/running-app.js';
import type { PostedMessage } from '../../kit/slack-payloads.js';
import {
  expectNoRejectedResponses,
  expectNoRejectedSlackCalls,
  expectNoSecretsLeaked,
  textOf,
} from '../../kit/slack-checks.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';

type Message = PostedMessage & Record<string, any>;

const templateTexts = (message: Message): string[] =>
  (message.blocks ?? []).filter((b) => b.type === 'section').map((b) => b.text.text as string);
const lastQuery = (fakes: Fakes) => fakes.mint.requestsTo('list_templates').at(-1)?.url;

/** Lists templates with a command; resolves with what was posted through the command's response_url. */
async function list(fakes: Fakes, app: RunningApp, text: string, overrides: Record<string, string> = {}) {
  const { fields, ack } = await app.command(text, overrides);
  const [posted] = await fakes.slack.waitForResponse(fields.response_url ?? '');
  return { fields, ack, message: posted?.body as Message };
}

/** Clicks a page button; resolves with what the app posted to the click's response_url (loading, then the page...). */
async function click(fakes: Fakes, app: RunningApp, message: Message, actionId: string, posts = 2, userId?: string) {
  const url = await app.click(message, actionId, userId);
  const responses = await fakes.slack.waitForResponse(url, posts);
  return responses.map((r) => r.body as Message);
}

describe.each(['http', 'socket'] as const)('browse templates (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode, { env: { MINT_API_TIMEOUT_MS: '1500' } });

  afterEach(() => {
    expectNoRejectedSlackCalls(fakes.slack);
    expectNoRejectedResponses(fakes.slack);
  });
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it('flips the order from the first page, and anyone in the channel may page', async () => {
    const { message } = await list(fakes, running.app, `templates ${DEMO_CONTRACT_ID} 5`);
    const [, flipped] = await click(fakes, running.app, message, TEMPLATES.buttons.order.actionId, 2, 'U0BOB0002');
    expect(lastQuery(fakes)).toBe(`/v1/nft/template/${DEMO_CONTRACT_ID}?offset=0&limit=5&orderBy=asc`);
    expect(templateTexts(flipped ?? {})[0]).toContain('`tmpl_001`');
    expect(textOf(flipped?.blocks?.[1])).toContain('ascending order · 1–5 of 123');
    const [, second] = await click(fakes, running.app, flipped ?? {}, TEMPLATES.buttons.next.actionId, 2, 'U0CAROL03');
    expect(lastQuery(fakes)).toBe(`/v1/nft/template/${DEMO_CONTRACT_ID}?offset=5&limit=5&orderBy=asc`);
    expect(templateTexts(second ?? {})[0]).toContain('`tmpl_006`');
  });
});
