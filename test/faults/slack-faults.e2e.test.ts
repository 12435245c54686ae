import { describe, expect, it } from 'vitest';
import { LINK_BLOCKS } from '../../src/capabilities/links/link-form.js';
import { useApp, useFakes } from '../kit/fakes.js';
import { TEST_USER_ID } from '../kit/slack-ids.js';
import { textOf } from '../kit/slack-checks.js';

/**
 * Slack answering 429 or ok:false: interactive paths fail fast with a message (the SDK's default would wait
 * and retry for about half an hour).
 */
describe.each(['http', 'socket'] as const)('Slack Web API faults (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode);

  it('tells the user at once when Slack rate-limits opening the form', async () => {
    fakes.slack.answerNext('views.open', { status: 429, headers: { 'retry-after': '30' } });
    const started = Date.now();
    const { fields } = await running.app.command('link');
    const [answer] = await fakes.slack.waitForResponse(fields.response_url ?? '', 1, 3_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(answer?.body).toMatchObject({
      response_type: 'ephemeral',
      text: ':x: The form could not be opened: Slack is limiting how fast the app may call it. Please try again in 30 seconds.',
    });
    expect(fakes.slack.callsTo('views.open')).toHaveLength(1); // not retried
  });

  it('says what Slack refused when it answers ok:false', async () => {
    fakes.slack.answerNext('views.open', { body: { ok: false, error: 'internal_error' } });
    const { fields } = await running.app.command('wallet');
    const [answer] = await fakes.slack.waitForResponse(fields.response_url ?? '', 1, 3_000);
    expect(answer?.body.text).toBe(
      ':x: The form could not be opened: Slack refused it (internal_error). Please try again.',
    );
  });

  it('still shows the outcome in the modal when the DM is rate-limited, without waiting', async () => {
    fakes.slack.answerNext('chat.postMessage', { status: 429, headers: { 'retry-after': '600' } });
    const { view } = await running.app.commandOpeningModal('link');
    const started = Date.now();
    await running.app.submitView(view, { [LINK_BLOCKS.nftId]: 'nft-dm-429' });
    const update = await fakes.slack.waitForCall('views.update', (c) => c.params.view_id === view.id, 3_000);
    expect(textOf(update.params.view)).toContain('Mint link created');
    await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID, 3_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    await running.app.waitForLog((l) => l.msg === 'could not send the direct message');
  });
});
