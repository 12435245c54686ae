/*
 * History over each transport, end to end: a link made through its form, then found by `/mintlink history` with
 * a word, paged with Next, and a refused forged page, as Slack sends them over HTTP (signed) and Socket Mode.
 * Every behaviour of the modal is in history.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY } from '../../../src/capabilities/history/actions.js';
import { LINK_BLOCKS } from '../../../src/capabilities/links/link-form.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import { expectNoRejectedSlackCalls, textOf } from '../../kit/slack-checks.js';

describe.each(['http', 'socket'] as const)('history (%s mode)', (mode) => {
  const fakes = useFakes();
  const running = useApp(fakes, mode);
  afterEach(() => expectNoRejectedSlackCalls(fakes.slack));

  it('finds a link made through the form, pages, and refuses a forged page', async () => {
    for (let i = 0; i < 11; i += 1)
      await running.app.submitFormFromCommand('link', {
        [LINK_BLOCKS.nftId]: `nft-e2e-${mode}`,
        [LINK_BLOCKS.email]: `n${i}@example.com`,
      });
    const { fields } = await running.app.command(`history nft-e2e-${mode}`);
    await fakes.slack.waitForCall('views.open', (c) => c.params.trigger_id === fields.trigger_id);
    const view = fakes.slack.lastOpenedView();
    expect(textOf(view)).toContain('n10@example.com');
    expect(textOf(view)).not.toContain('n0@example.com');

    await running.app.clickInView(view, HISTORY.buttons.next.actionId);
    const next = await fakes.slack.viewUpdate(view.id);
    expect(textOf(next)).toContain('n0@example.com');

    const state = JSON.parse(String(view.private_metadata)) as Record<string, unknown>;
    const forged = { ...view, private_metadata: JSON.stringify({ ...state, team: 'T0OTHER01' }) };
    const updates = fakes.slack.callsTo('views.update').length;
    await running.app.clickInView(forged, HISTORY.buttons.next.actionId);
    await fakes.slack.waitFor(() => fakes.slack.callsTo('views.update').length > updates, 5_000, 'the refusal');
    expect(textOf(fakes.slack.callsTo('views.update').at(-1)?.params.view)).toContain('another workspace');
  });
});
