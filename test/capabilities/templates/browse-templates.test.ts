import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BROWSE_BLOCKS } from '../../../src/capabilities/templates/browse-templates-form.js';
import { DEMO_CONTRACT_ID, EMPTY_CONTRACT_ID } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { useFakes, useListenerApp, type Fakes } from '../../kit/fakes.js';
import type { SlackDriver } from '../../kit/slack-driver.js';
import type { PostedMessage } from '../../kit/slack-payloads.js';
import {
  expectNoRejectedResponses,
  expectNoRejectedSlackCalls,
  expectNoSecretsLeaked,
  textOf,
} from '../../kit/slack-checks.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';

type Message = PostedMessage & Record<string, any>;

/** The paging buttons on the page, in order: other buttons may sit beside them. */
const paging: string[] = [TEMPLATES.buttons.previous, TEMPLATES.buttons.next, TEMPLATES.buttons.order].map(
  (button) => button.actionId,
);
const buttonsOf = (message: Message): string[] =>
  (message.blocks ?? [])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements as Array<{ action_id: string }>).map((e) => e.action_id))
    .filter((id) => paging.includes(id));
const templateTexts = (message: Message): string[] =>
  (message.blocks ?? []).filter((b) => b.type === 'section').map((b) => b.text.text as string);
const lastQuery = (fakes: Fakes) => fakes.mint.requestsTo('list_templates').at(-1)?.url;

/** Lists templates with a command; resolves with what was posted through the command's response_url. */
async function list(fakes: Fakes, app: SlackDriver, text: string, overrides: Record<string, string> = {}) {
  const { fields, ack } = await app.command(text, overrides);
  const [posted] = await fakes.slack.waitForResponse(fields.response_url ?? '');
  return { fields, ack, message: posted?.body as Message };
}

/** Clicks a page button; resolves with what the app posted to the click's response_url (loading, then the page...). */
async function click(fakes: Fakes, app: SlackDriver, message: Message, actionId: string, posts = 2, userId?: string) {
  const url = await app.click(message, actionId, userId);
  const responses = await fakes.slack.waitForResponse(url, posts);
  return responses.map((r) => r.body as Message);
}

describe('browse templates', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  afterEach(() => {
    expectNoRejectedSlackCalls(fakes.slack);
    expectNoRejectedResponses(fakes.slack);
  });
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  describe.each([
    ['an object with a total', 'wrapped', 10, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120], '121–123 of 123'],
    ['an object with a total', 'wrapped', 50, [0, 50, 100], '101–123 of 123'],
    ['a bare array', 'array', 10, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120], '121–123'],
    ['a bare array', 'array', 50, [0, 50, 100], '101–123'],
  ] as const)('when the service answers %s (%s), limit %i', (_name, shape, limit, offsets, lastRange) => {
    it('pages forward to the last page and back, sending the right query for each click', async () => {
      fakes.mint.templateShape = shape;
      const first = await list(fakes, running.app, `templates ${DEMO_CONTRACT_ID} ${limit}`);
      let message = first.message;
      const ack = first.ack;
      expect(ack).toBeUndefined();
      expect(message.response_type).toBe('in_channel');
      expect(lastQuery(fakes)).toBe(`/v1/nft/template/${DEMO_CONTRACT_ID}?offset=0&limit=${limit}&orderBy=desc`);
      expect(buttonsOf(message)).toEqual([TEMPLATES.buttons.next.actionId, TEMPLATES.buttons.order.actionId]);
      expect(templateTexts(message)[0]).toContain('`tmpl_123`');

      for (const offset of offsets.slice(1)) {
        expect(buttonsOf(message)).toContain(TEMPLATES.buttons.next.actionId);
        const [loading, page] = await click(fakes, running.app, message, TEMPLATES.buttons.next.actionId);
        expect(loading?.replace_original).toBe(true);
        expect(buttonsOf(loading ?? {})).toEqual([]);
        message = page ?? {};
        expect(message.replace_original).toBe(true);
        expect(lastQuery(fakes)).toBe(
          `/v1/nft/template/${DEMO_CONTRACT_ID}?offset=${offset}&limit=${limit}&orderBy=desc`,
        );
      }
      expect(buttonsOf(message)).toEqual([TEMPLATES.buttons.previous.actionId, TEMPLATES.buttons.order.actionId]);
      expect(textOf(message.blocks?.[1])).toContain(lastRange);
      expect(templateTexts(message).at(-1)).toContain('`tmpl_001`');

      const back = [...offsets].reverse().slice(1);
      for (const offset of back) {
        const [, page] = await click(fakes, running.app, message, TEMPLATES.buttons.previous.actionId);
        message = page ?? {};
        expect(lastQuery(fakes)).toBe(
          `/v1/nft/template/${DEMO_CONTRACT_ID}?offset=${offset}&limit=${limit}&orderBy=desc`,
        );
      }
      expect(buttonsOf(message)).toEqual([TEMPLATES.buttons.next.actionId, TEMPLATES.buttons.order.actionId]);
      expect(fakes.mint.requestsTo('list_templates')).toHaveLength(offsets.length * 2 - 1);
    });
  });

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

  it('shows a page past a bare-array end as empty, with a way back', async () => {
    fakes.mint.templateShape = 'array';
    let { message } = await list(fakes, running.app, `templates ${DEMO_CONTRACT_ID} 41`);
    for (let i = 0; i < 3; i += 1)
      [, message = {}] = await click(fakes, running.app, message, TEMPLATES.buttons.next.actionId);
    expect(lastQuery(fakes)).toContain('offset=123&limit=41');
    expect(textOf(message)).toContain('No templates from number 124 on.');
    expect(buttonsOf(message)).toEqual([TEMPLATES.buttons.previous.actionId, TEMPLATES.buttons.order.actionId]);
  });

  it.each([
    ['no contract ID', 'templates', 'Which contract? Give its ID.'],
    ['a limit of 0', `templates ${DEMO_CONTRACT_ID} 0`, 'The limit must be a whole number from 1 to 50'],
    ['a limit of 51', `templates ${DEMO_CONTRACT_ID} 51`, 'The limit must be a whole number from 1 to 50'],
    ['a fractional limit', `templates ${DEMO_CONTRACT_ID} 1.5`, 'The limit must be a whole number from 1 to 50'],
    [
      'an unknown order word',
      `templates ${DEMO_CONTRACT_ID} 10 newest`,
      '`newest` is neither a limit (1–50) nor an order',
    ],
    ['extra words', `templates ${DEMO_CONTRACT_ID} 10 asc please`, 'Too many words: `please`.'],
  ])('answers %s with an ephemeral error and no call', async (_name, text, problem) => {
    const { ack, fields } = await running.app.command(text);
    expect(ack).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining(problem) });
    await running.app.waitForIdle();
    expect(fakes.mint.requests).toEqual([]);
    expect(fakes.slack.responsesTo(fields.response_url ?? '')).toEqual([]);
  });

  it('says so, to the user only, when a contract has no templates or is unknown', async () => {
    const empty = await list(fakes, running.app, `templates ${EMPTY_CONTRACT_ID}`);
    expect(empty.message).toEqual({
      response_type: 'ephemeral',
      text: `:warning: Contract \`${EMPTY_CONTRACT_ID}\` has no templates.`,
    });
    const unknown = await list(fakes, running.app, 'templates no-such-contract');
    expect(unknown.message).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('does not know contract `no-such-contract` (HTTP 404)'),
    });
  });

  it('tells only the clicker when a page fails, and puts the page back as it was', async () => {
    const { message } = await list(fakes, running.app, `templates ${DEMO_CONTRACT_ID}`);
    fakes.mint.failNext('list_templates', { mode: 'status', status: 503 }, 3);
    const [loading, restored, note] = await click(fakes, running.app, message, TEMPLATES.buttons.next.actionId, 3);
    expect(buttonsOf(loading ?? {})).toEqual([]);
    expect(restored).toEqual({ replace_original: true, text: message.text, blocks: message.blocks });
    expect(note).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: expect.stringContaining('unavailable right now (HTTP 503)'),
    });
    expect(fakes.mint.requestsTo('list_templates')).toHaveLength(1 + 3); // the GET was retried twice
  });

  it('keeps the message whole when a second click comes while a page loads', async () => {
    const { message } = await list(fakes, running.app, `templates ${DEMO_CONTRACT_ID}`);
    fakes.mint.latencyMs = 100; // both clicks arrive at once, in-process: the first page is still loading
    const [first, second] = await Promise.all([
      click(fakes, running.app, message, TEMPLATES.buttons.next.actionId),
      click(fakes, running.app, message, TEMPLATES.buttons.next.actionId),
    ]);
    for (const [loading, page] of [first, second]) {
      expect(textOf(loading)).toContain('Loading 11–20…');
      expect(buttonsOf(loading ?? {})).toEqual([]);
      expect(textOf(page?.blocks?.[1])).toContain('11–20 of 123');
      expect(buttonsOf(page ?? {})).toEqual([
        TEMPLATES.buttons.previous.actionId,
        TEMPLATES.buttons.next.actionId,
        TEMPLATES.buttons.order.actionId,
      ]);
    }
  });

  it('works in a DM and in channels the bot has not joined: everything goes through response URLs', async () => {
    const { message } = await list(fakes, running.app, `templates ${DEMO_CONTRACT_ID} 3`, {
      channel_id: 'D0DIRECT1',
      channel_name: 'directmessage',
    });
    expect(message.response_type).toBe('in_channel');
    await click(fakes, running.app, { ...message, channelId: 'D0DIRECT1' }, TEMPLATES.buttons.next.actionId);
    expect(fakes.slack.callsTo('chat.postMessage')).toEqual([]);
    expect(fakes.slack.callsTo('conversations.join')).toEqual([]);
  });

  it('tells the user another way when Slack refuses the response URL', async () => {
    const url = fakes.slack.responseUrl();
    fakes.slack.failResponseUrl(url, 404);
    await running.app.command(`templates ${DEMO_CONTRACT_ID}`, { response_url: url });
    const note = await fakes.slack.waitForCall('chat.postEphemeral');
    expect(note.params).toMatchObject({
      user: 'U0ALICE01',
      text: expect.stringContaining('Slack did not accept the list of templates here'),
    });
    fakes.slack.responses.length = 0; // the refused post was the point of this test
  });

  it('"Browse templates" asks for a contract and posts the list in the conversation picked', async () => {
    await running.app.shortcut('browse_templates');
    await fakes.slack.waitForCall('views.open');
    const view = fakes.slack.lastOpenedView();
    expect(view.callback_id).toBe('browse_templates_form');

    const refused = await running.app.submitView(view, {
      [BROWSE_BLOCKS.contractId]: 'a b',
      [BROWSE_BLOCKS.conversation]: 'C0OTHER01',
    });
    expect(refused).toEqual({
      response_action: 'errors',
      errors: { [BROWSE_BLOCKS.contractId]: 'The contract ID must not contain spaces.' },
    });
    expect(fakes.mint.requests).toEqual([]);

    const ack = await running.app.submitView(view, {
      [BROWSE_BLOCKS.contractId]: DEMO_CONTRACT_ID,
      [BROWSE_BLOCKS.conversation]: 'C0OTHER01',
    });
    expect(ack).toMatchObject({ response_action: 'update' });
    const [posted] = await fakes.slack.waitFor(() =>
      fakes.slack.responses.length > 0 ? fakes.slack.responses : undefined,
    );
    expect(posted?.body).toMatchObject({
      response_type: 'in_channel',
      text: `Templates of ${DEMO_CONTRACT_ID}, descending order: 1–10 of 123`,
    });
    expect(textOf(await fakes.slack.viewUpdate(view.id))).toContain(
      `Posted the templates of \`${DEMO_CONTRACT_ID}\` in <#C0OTHER01>.`,
    );
  });
});
