import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CONTRACT_ID } from '../../../../src/operator/mock-mint-api/demo-templates.js';
import { encodePageState } from '../../../../src/capabilities/templates/page-state.js';
import type { AppProcess } from '../../../kit/app-process.js';
import { useFakes } from '../../../kit/fakes.js';
import { buttonClick } from '../../../kit/slack-payloads.js';
import { TEMPLATES } from '../../../../src/capabilities/templates/actions.js';

const CLICKS = 500;
const BUDGET = 20;
/** Busy notes that need a call of their own have their own small budget (src/platform/slack/admission). */
const BUSY_NOTICES_AT_ONCE = 16;

/**
 * A flood of clicks on a template page whose response_url never answers: every click is acknowledged at
 * once, the calls the app makes to the silent host stay bounded by its budgets, and memory with them. (The
 * benchmark floods with ten times as many.)
 */
describe('a click flood on a silent response_url', () => {
  const fakes = useFakes();
  let app: AppProcess | undefined;
  afterEach(async () => {
    await app?.stop('SIGKILL'); // the held calls would only time out
  });

  it('acknowledges every click, answers "busy" beyond the budget, and keeps outbound calls and memory bounded', async () => {
    app = await fakes.startProcess('http', { env: { MAX_WORK_IN_FLIGHT: String(BUDGET), LOG_LEVEL: 'info' } });
    const rssBefore = app.rssMb;
    const value = encodePageState({ contractId: DEMO_CONTRACT_ID, offset: 10, limit: 10, order: 'desc' });
    const page = {
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: TEMPLATES.buttons.next.actionId, value }] }],
    };
    const started = Date.now();
    for (let sent = 0; sent < CLICKS; sent += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const click = {
            ...buttonClick(fakes.slack, page, TEMPLATES.buttons.next.actionId),
            response_url: fakes.slack.silentResponseUrl(),
          };
          await app?.interact(click); // throws unless Slack's request got a 200
        }),
      );
    }
    expect(Date.now() - started).toBeLessThan(10_000);

    const metrics = await (await fetch(`${app.baseUrl}/metrics`)).text();
    const refused = Number(/^mintlink_busy_refusals_total\{kind="action"\} (\d+)$/m.exec(metrics)?.[1]);
    expect(refused).toBeGreaterThanOrEqual(CLICKS - BUDGET);
    expect(metrics).toMatch(new RegExp(`^mintlink_work_in_flight ${BUDGET}$`, 'm'));
    expect(fakes.slack.silentRequestsOpen).toBeLessThanOrEqual(BUDGET + BUSY_NOTICES_AT_ONCE);
    expect(app.rssMb - rssBefore).toBeLessThan(60);
    const readyz = await fetch(`${app.baseUrl}/readyz`);
    expect(readyz.status).toBe(503);
    expect((await app.command('help')).ack).toMatchObject({ text: expect.stringContaining('very busy') });
    expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
  });
});
