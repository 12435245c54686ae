import { describe, it } from 'vitest';
import { DEMO_CONTRACT_ID } from '../../../src/operator/mock-mint-api/demo-templates.js';
import { BROWSE_BLOCKS as B } from '../../../src/capabilities/templates/browse-templates-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { TEST_CHANNEL_ID } from '../../kit/slack-ids.js';

/* The "Browse templates" modal in each state (the page it posts is a message: see templates-screens). */

describe('browse templates form screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);
  const viewOf = (ack: Record<string, unknown> | undefined) => (ack as { view: Record<string, unknown> }).view;

  async function openForm() {
    await running.app.shortcut('browse_templates');
    await fakes.slack.waitForCall('views.open');
    return fakes.slack.lastOpenedView();
  }

  it('the form: empty, with an inline error, working, posted', async () => {
    const view = await openForm();
    await expectScreen('templates/browse-form--empty', modalText(view));
    await running.app.submitView(view, { [B.contractId]: 'a b', [B.conversation]: TEST_CHANNEL_ID });
    await expectScreen('templates/browse-form--errors', modalScreen(fakes.slack, view.id));
    const ack = await running.app.submitView(view, {
      [B.contractId]: DEMO_CONTRACT_ID,
      [B.conversation]: TEST_CHANNEL_ID,
    });
    await expectScreen('templates/browse-modal--working', modalText(viewOf(ack)));
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('templates/browse-modal--posted', modalScreen(fakes.slack, view.id));
  });

  it('failed: the service does not know the contract', async () => {
    // A 4xx is never retried: one answer, whatever the machine's load.
    fakes.mint.failNext('list_templates', { mode: 'status', status: 404, body: { message: 'No such contract' } });
    const view = await openForm();
    await running.app.submitView(view, { [B.contractId]: DEMO_CONTRACT_ID, [B.conversation]: TEST_CHANNEL_ID });
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('templates/browse-form--failed', modalScreen(fakes.slack, view.id));
  });
});
