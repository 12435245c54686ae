import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../src/settings/settings-form.js';
import { ended, linkCsv, previewOf, start } from '../bulk/bulk-kit.js';
import { useApp, useFakes } from '../kit/fakes.js';
import { SettingsFlow } from '../kit/settings-flow.js';
import { textOf } from '../kit/slack-checks.js';

const ADMIN = 'U0ADMIN01';

/* A setting the form changes is what the next piece of work runs under: here the bulk jobs' concurrency. */
describe('the bulk concurrency set in Slack', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', {
    env: { SETTINGS_ADMINS: ADMIN, BULK_CONCURRENCY: '4', MAX_WORK_IN_FLIGHT: '40', MINT_API_TIMEOUT_MS: '2000' },
  });
  const settings = new SettingsFlow(fakes);

  it('is the number of rows the next job sends at once', async () => {
    const form = await settings.open(running.app, ADMIN);
    const ack = await settings.save(running.app, form, { [FIELDS.bulkConcurrency]: '2' }, ADMIN);
    expect(textOf(ack)).toContain('*Saved.*');

    fakes.mint.latencyMs = 150;
    const preview = await previewOf(running.app, fakes.slack, linkCsv(12), { bulk_nft_id: 'nft-bulk' });
    const started = await start(running.app, fakes.slack, preview);
    await ended(fakes.slack, started);
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(12);
    expect(fakes.mint.peakInFlight).toBe(2);
  });
});
