import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CONTRACT_ID, EMPTY_CONTRACT_ID } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import type { PostedMessage } from '../../kit/slack-payloads.js';
import { expectNoRejectedResponses, expectNoRejectedSlackCalls } from '../../kit/slack-checks.js';
import { ephemeralText, messageText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import { TEMPLATES } from '../../../src/capabilities/templates/actions.js';

/*
 * The page of a contract's templates that `/mintlink templates` posts in the conversation, as everyone in it
 * sees it: the first page, one in the middle, the last, the page while the next one loads, and what the person
 * who asked (or clicked) alone sees when there is nothing to show or the Mint service fails. Golden screens
 * under test/screens/templates/.
 */

type Message = PostedMessage & Record<string, unknown>;

describe('templates page screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);
  afterEach(() => {
    expectNoRejectedSlackCalls(fakes.slack);
    expectNoRejectedResponses(fakes.slack);
  });

  /** The page as everyone in #general sees it. */
  const page = (name: string, message: Message | undefined) =>
    expectScreen(name, messageText(message ?? {}, { where: '#general' }));
  /** What only the person who asked or clicked sees. */
  const ephemeral = (name: string, message: Message | undefined) => expectScreen(name, ephemeralText(message ?? {}));

  /** `/mintlink <text>`; resolves with what the app posted to the command's response_url. */
  async function command(text: string): Promise<Message> {
    const { fields } = await running.app.command(text);
    const [posted] = await fakes.slack.waitForResponse(fields.response_url ?? '');
    return posted?.body as Message;
  }

  /** Clicks a page button; resolves with the posts to the click's response_url (loading, then the page...). */
  async function click(message: Message, actionId: string, posts = 2): Promise<Message[]> {
    const url = await running.app.click(message, actionId);
    return (await fakes.slack.waitForResponse(url, posts)).map((r) => r.body as Message);
  }

  it('shows the first page, one in the middle, the last, and the page while the next loads', async () => {
    const first = await command(`templates ${DEMO_CONTRACT_ID} 10`);
    await page('templates/page--first', first);
    const [loading, second] = await click(first, TEMPLATES.buttons.next.actionId);
    await page('templates/page--loading-next', loading);
    let shown = second ?? {};
    for (let i = 0; i < 5; i += 1) [, shown = {}] = await click(shown, TEMPLATES.buttons.next.actionId);
    await page('templates/page--middle', shown); // 61–70 of 123
    for (let i = 0; i < 6; i += 1) [, shown = {}] = await click(shown, TEMPLATES.buttons.next.actionId);
    await page('templates/page--last', shown); // 121–123 of 123
    const [, ascending] = await click(first, TEMPLATES.buttons.order.actionId);
    await page('templates/page--first-ascending', ascending);
  });

  it('shows a page past the end as empty, with a way back, when the service does not say how many there are', async () => {
    fakes.mint.templateShape = 'array';
    let shown = await command(`templates ${DEMO_CONTRACT_ID} 41`);
    for (let i = 0; i < 3; i += 1) [, shown = {}] = await click(shown, TEMPLATES.buttons.next.actionId);
    await page('templates/page--past-the-end', shown);
  });

  it('tells only the person who asked when there is nothing to list', async () => {
    await ephemeral('templates/ephemeral--no-templates', await command(`templates ${EMPTY_CONTRACT_ID}`));
    await ephemeral('templates/ephemeral--unknown-contract', await command('templates no-such-contract'));
  });

  it('tells only the clicker when a page fails, and puts the page back as it was', async () => {
    const first = await command(`templates ${DEMO_CONTRACT_ID} 10`);
    fakes.mint.failNext('list_templates', { mode: 'status', status: 503 }, 3);
    const [, restored, note] = await click(first, TEMPLATES.buttons.next.actionId, 3);
    expect(restored?.blocks).toEqual(first.blocks);
    await ephemeral('templates/ephemeral--page-failed', note);
  });

  it('tells the person who asked when the first page fails', async () => {
    fakes.mint.failNext('list_templates', { mode: 'status', status: 503 }, 3);
    await ephemeral('templates/ephemeral--first-page-failed', await command(`templates ${DEMO_CONTRACT_ID}`));
  });
});
