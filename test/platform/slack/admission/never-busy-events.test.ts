import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CONTRACT_ID } from '../../../../src/operator/mock-mint-api/demo-templates.js';
import { useFakes } from '../../../kit/fakes.js';
import type { ListenerApp } from '../../../kit/listener-app.js';

/*
 * Slack has its 200 for an event before the admission middleware runs and never sends it again: an uninstall
 * turned away as "busy" would never apply. Events that change which workspaces the app serves pass a full
 * work budget.
 */
describe('an uninstall while the work budget is full', () => {
  const fakes = useFakes();
  let app: ListenerApp | undefined;
  afterEach(async () => {
    await app?.stop();
  });

  it('is applied, not turned away', async () => {
    app = await fakes.startListenerApp({
      env: { MAX_WORK_IN_FLIGHT: '2', BULK_CONCURRENCY: '1', MINT_API_TIMEOUT_MS: '1500' },
    });
    // Two templates commands whose Mint calls hang hold the whole budget until the calls time out (1.5 s).
    fakes.mint.failNext('list_templates', { mode: 'hang' }, 2);
    await app.command(`templates ${DEMO_CONTRACT_ID}`);
    await app.command(`templates ${DEMO_CONTRACT_ID}`);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('list_templates').length === 2, 1_500, 'the hanging calls');

    await app.event({ type: 'app_uninstalled' }); // from the test workspace, as Slack sends it
    await app.waitForLog((line) => line.msg === 'the app was removed from a workspace: its work is stopped', 2_000);
    expect(fakes.mint.requestsTo('list_templates')).toHaveLength(2); // the holders were still running
    expect(app.logLines.filter((line) => line.msg === 'work budget full; request answered "busy"')).toEqual([]);
  });
});
