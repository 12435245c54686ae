import { describe, it } from 'vitest';
import { WALLET_BLOCKS as B } from '../../../src/capabilities/wallets/wallet-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { messageText, modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';

/* The "Create wallet" modal and its DM in each state, as the person who made it sees them. */

describe('wallet screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  it('the form: empty, prefilled from the command, with an inline error', async () => {
    const { view } = await running.app.commandOpeningModal('wallet');
    await expectScreen('wallets/wallet-form--empty', modalText(view));
    const { view: prefilled } = await running.app.commandOpeningModal('wallet cus_7');
    await expectScreen('wallets/wallet-form--prefilled', modalText(prefilled));
    await running.app.submitView(view, { [B.customerId]: 'not an id' });
    await expectScreen('wallets/wallet-form--errors', modalScreen(fakes.slack, view.id));
  });

  it('working, then the wallet in the modal and as a DM', async () => {
    const { view } = await running.app.commandOpeningModal('wallet');
    const ack = await running.app.submitView(view, { [B.customerId]: 'cus_42' });
    await expectScreen('wallets/wallet-modal--working', modalText((ack as { view: Record<string, unknown> }).view));
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('wallets/wallet-modal--done', modalScreen(fakes.slack, view.id));
    const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    await expectScreen('wallets/wallet-dm--done', messageText(dm.params, { where: 'DM' }));
  });

  it('done for a new user (no customer ID given)', async () => {
    const { view } = await running.app.commandOpeningModal('wallet');
    await running.app.submitView(view, {});
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('wallets/wallet-modal--done-new-user', modalScreen(fakes.slack, view.id));
    const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    await expectScreen('wallets/wallet-dm--done-new-user', messageText(dm.params, { where: 'DM' }));
  });

  it('failed: the form again with the reason, and the DM', async () => {
    fakes.mint.failNext('create_wallet', { mode: 'status', status: 500 });
    const { view } = await running.app.commandOpeningModal('wallet');
    await running.app.submitView(view, { [B.customerId]: 'cus_9' });
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('wallets/wallet-modal--failed', modalScreen(fakes.slack, view.id));
    const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    await expectScreen('wallets/wallet-dm--failed', messageText(dm.params, { where: 'DM' }));
  });

  describe('when the service does not answer', () => {
    // An app of its own, whose Mint calls are given up after 0.8 s (shown on these screens): the other screens'
    // answers may take longer than that on a busy machine.
    const hasty = useListenerApp(fakes, { env: { MINT_API_TIMEOUT_MS: '800' } });

    it('failed without knowing: the service did not answer in time', async () => {
      fakes.mint.failNext('create_wallet', { mode: 'hang' });
      const { view } = await hasty.app.commandOpeningModal('wallet');
      await hasty.app.submitView(view, { [B.customerId]: 'cus_slow' });
      await fakes.slack.viewUpdate(view.id);
      await expectScreen('wallets/wallet-modal--timed-out', modalScreen(fakes.slack, view.id));
      const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
      await expectScreen('wallets/wallet-dm--timed-out', messageText(dm.params, { where: 'DM' }));
    });
  });
});
