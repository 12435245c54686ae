import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { demoTemplates } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { useFakes, useListenerApp, type Fakes } from '../../kit/fakes.js';
import type { SlackDriver } from '../../kit/slack-driver.js';
import type { PostedMessage } from '../../kit/slack-payloads.js';
import {
  expectNoRejectedResponses,
  expectNoRejectedSlackCalls,
  expectNoSecretsLeaked,
} from '../../kit/slack-checks.js';

type Message = PostedMessage & Record<string, any>;

/** No raw `<` or `>` (no mention Slack would act on), and every `&` starts an entity. */
const expectEscaped = (text: unknown) => {
  expect(typeof text).toBe('string');
  expect(String(text)).not.toMatch(/[<>]/);
  expect(String(text).replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
};
/** Every mrkdwn text of a message (plain_text, such as the header, is not parsed by Slack). */
const mrkdwnTexts = (message: Message): string[] =>
  JSON.stringify(message.blocks ?? [])
    .match(/\{"type":"mrkdwn","text":"(?:[^"\\]|\\.)*"/g)
    ?.map((m) => JSON.parse(`${m}}`).text as string) ?? [];

async function list(fakes: Fakes, app: SlackDriver, text: string) {
  const { fields, ack } = await app.command(text);
  const [posted] = await fakes.slack.waitForResponse(fields.response_url ?? '');
  return { ack, message: posted?.body as Message };
}

describe('templates: what users and the service write is escaped (http mode)', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  afterEach(() => {
    expectNoRejectedSlackCalls(fakes.slack);
    expectNoRejectedResponses(fakes.slack);
  });
  afterAll(() => expectNoSecretsLeaked(fakes.slack, running.app));

  it('posts the page of a contract called <!channel> without notifying the channel', async () => {
    fakes.mint.contracts.set('<!channel>', demoTemplates(2));
    const { message } = await list(fakes, running.app, 'templates <!channel>');
    expect(message.response_type).toBe('in_channel');
    expect(message.text).toBe('Templates of &lt;!channel&gt;, descending order: 1–2 of 2');
    expectEscaped(message.text);
    for (const text of mrkdwnTexts(message)) expectEscaped(text);
    expect(message.blocks?.[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
  });

  it('keeps a template name with * and <!here> inside its bold, escaped', async () => {
    fakes.mint.contracts.set('star-contract', [
      {
        id: 'tmpl_star',
        name: 'Gold *VIP* <!here> & co',
        description: '<!channel> *x',
        imageUrl: 'https://placehold.co/256x256/png?text=star',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    const { message } = await list(fakes, running.app, 'templates star-contract');
    const section = mrkdwnTexts(message).find((t) => t.includes('tmpl_star'));
    expect(section).toBe('*Gold ∗VIP∗ &lt;!here&gt; &amp; co* · `tmpl_star`\n&lt;!channel&gt; *x');
    for (const text of [message.text, ...mrkdwnTexts(message)]) expectEscaped(text);
  });

  it('answers wrong arguments with the user text escaped in the fallback text', async () => {
    const { ack, fields } = await running.app.command('templates <!channel> <!here>');
    expect(ack).toMatchObject({ response_type: 'ephemeral' });
    expect(ack?.text).toContain('`&lt;!here&gt;` is neither a limit (1–50) nor an order');
    expect(ack?.text).toContain('Usage: `/mintlink templates &lt;contractId&gt; [limit] [asc|desc]`');
    expectEscaped(ack?.text);
    await running.app.waitForIdle();
    expect(fakes.mint.requests).toEqual([]);
    expect(fakes.slack.responsesTo(fields.response_url ?? '')).toEqual([]);
  });

  it('answers an unknown contract <!channel>, and a service message with markup, escaped', async () => {
    const unknown = await list(fakes, running.app, 'templates <!channel>');
    expect(unknown.message).toMatchObject({ response_type: 'ephemeral' });
    expect(unknown.message.text).toContain('does not know contract `&lt;!channel&gt;` (HTTP 404)');
    expectEscaped(unknown.message.text);

    fakes.mint.failNext('list_templates', {
      mode: 'status',
      status: 400,
      body: { message: '<!channel> & <@U1> boom' },
    });
    const failed = await list(fakes, running.app, 'templates demo-contract');
    expect(failed.message.text).toContain('It said: “&lt;!channel&gt; &amp; &lt;@U1&gt; boom”');
    expectEscaped(failed.message.text);
  });

  it.each(['0x10', '1e1', '+5', '010.0', '0b1', '1_0'])(
    'refuses the limit %s: a limit is plain decimal digits',
    async (limit) => {
      const { ack, fields } = await running.app.command(`templates demo-contract ${limit}`);
      expect(ack).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringContaining(
          `The limit must be a whole number from 1 to 50 in plain digits, not \`${limit}\``,
        ),
      });
      await running.app.waitForIdle();
      expect(fakes.mint.requests).toEqual([]);
      expect(fakes.slack.responsesTo(fields.response_url ?? '')).toEqual([]);
    },
  );

  it('reads a limit with a leading zero as the decimal number it is', async () => {
    const { message } = await list(fakes, running.app, 'templates demo-contract 010');
    expect(fakes.mint.requestsTo('list_templates').at(-1)?.url).toContain('limit=10&');
    expect(message.text).toContain('1–10 of 123');
  });
});
