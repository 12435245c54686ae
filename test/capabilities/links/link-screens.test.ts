import { describe, it } from 'vitest';
import { LINK_BLOCKS as B } from '../../../src/capabilities/links/link-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { messageText, modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { TEST_USER_ID } from '../../kit/slack-ids.js';

/* The "Create mint link" modal and its DM in each state, as the person who made it sees them. */

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000);

describe('link screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes);

  it('the form: empty, prefilled from the command, with inline errors', async () => {
    const { view } = await running.app.commandOpeningModal('link');
    await expectScreen('links/link-form--empty', modalText(view));
    const { view: prefilled } = await running.app.commandOpeningModal('link nft-7');
    await expectScreen('links/link-form--prefilled', modalText(prefilled));

    await running.app.submitView(view, {
      [B.nftId]: null,
      [B.email]: 'x@',
      [B.customerIds]: 'a a b@d!',
      [B.maxQuantity]: '0',
      [B.claimStart]: inHours(50),
      [B.claimEnd]: inHours(26),
    });
    await expectScreen('links/link-form--errors', modalScreen(fakes.slack, view.id));
    await running.app.submitView(view, { [B.nftId]: 'nft-1', [B.claimEnd]: inHours(-24) });
    await expectScreen('links/link-form--end-passed', modalScreen(fakes.slack, view.id));
  });

  it('working, then the link in the modal and as a DM', async () => {
    const { view } = await running.app.commandOpeningModal('link');
    const ack = await running.app.submitView(view, {
      [B.nftId]: 'nft-42',
      [B.email]: 'ann@example.com',
      [B.customerIds]: 'cus_1 cus_2 cus_3',
      [B.maxQuantity]: '2',
      [B.claimStart]: inHours(24),
      [B.claimEnd]: inHours(24 * 8),
    });
    await expectScreen('links/link-modal--working', modalText((ack as { view: Record<string, unknown> }).view));
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('links/link-modal--done', modalScreen(fakes.slack, view.id));
    const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    await expectScreen('links/link-dm--done', messageText(dm.params, { where: 'DM' }));
  });

  it('failed: the form again with the reason, and the DM', async () => {
    fakes.mint.failNext('create_link', { mode: 'status', status: 400, body: { message: 'NFT nft-x is sold out' } });
    const { view } = await running.app.commandOpeningModal('link');
    await running.app.submitView(view, { [B.nftId]: 'nft-x', [B.email]: 'keep@example.com' });
    await fakes.slack.viewUpdate(view.id);
    await expectScreen('links/link-modal--failed', modalScreen(fakes.slack, view.id));
    const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
    await expectScreen('links/link-dm--failed', messageText(dm.params, { where: 'DM' }));
  });

  describe('when the service does not answer', () => {
    // An app of its own, whose Mint calls are given up after 0.8 s (shown on these screens): the other screens'
    // answers may take longer than that on a busy machine.
    const hasty = useListenerApp(fakes, { env: { MINT_API_TIMEOUT_MS: '800' } });

    it('failed without knowing: the service did not answer in time', async () => {
      fakes.mint.failNext('create_link', { mode: 'hang' });
      const { view } = await hasty.app.commandOpeningModal('link');
      await hasty.app.submitView(view, { [B.nftId]: 'nft-slow' });
      await fakes.slack.viewUpdate(view.id);
      await expectScreen('links/link-modal--timed-out', modalScreen(fakes.slack, view.id));
      const dm = await fakes.slack.waitForCall('chat.postMessage', (c) => c.params.channel === TEST_USER_ID);
      await expectScreen('links/link-dm--timed-out', messageText(dm.params, { where: 'DM' }));
    });
  });
});
