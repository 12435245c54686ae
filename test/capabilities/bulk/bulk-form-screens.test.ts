import { describe, it } from 'vitest';
import { BULK_BLOCKS as B } from '../../../src/capabilities/bulk/bulk-form.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { modalText } from '../../kit/screen-text.js';
import { expectScreen, modalScreen } from '../../kit/screens.js';
import { viewWhen, QUICK_BULK_PACE } from './bulk-kit.js';

/* The "Bulk create" form in each state (its preview, progress and results: bulk-screens.e2e.test.ts). */

describe('bulk form screens', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { bulkPace: QUICK_BULK_PACE });
  const viewOf = (ack: Record<string, unknown> | undefined) => (ack as { view: Record<string, unknown> }).view;

  it('the form: for links, for wallets, with inline errors', async () => {
    const { view } = await running.app.commandOpeningModal('bulk');
    await expectScreen('bulk/bulk-form--empty-links', modalText(view));
    const { view: wallets } = await running.app.commandOpeningModal('bulk wallets');
    await expectScreen('bulk/bulk-form--empty-wallets', modalText(wallets));
    await running.app.submitView(view, {});
    await expectScreen('bulk/bulk-form--errors', modalScreen(fakes.slack, view.id));
  });

  it('working, then the file could not be read', async () => {
    const file = fakes.slack.hostFile({ content: 'email\nu1@example.com\n', name: 'links.csv' });
    fakes.slack.hostedFiles.delete(file.id); // gone before the app reads it: Slack answers 404
    const { view } = await running.app.commandOpeningModal('bulk');
    const ack = await running.app.submitView(view, { [B.file]: { files: [file] }, [B.nftId]: 'nft-1' });
    await expectScreen('bulk/bulk-modal--checking', modalText(viewOf(ack)));
    const again = await viewWhen(fakes.slack, view.id, (v) => !JSON.stringify(v).includes('Checking'));
    await expectScreen('bulk/bulk-form--file-unreadable', modalText(again));
  });
});
