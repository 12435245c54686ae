import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_TEXT } from '../../../../src/platform/slack/admission/admission-middleware.js';
import { LINK_BLOCKS, linkFormView } from '../../../../src/capabilities/links/link-form.js';
import { DEMO_CONTRACT_ID } from '../../../../src/operator/mock-mint-api/demo-templates.js';
import { encodePageState } from '../../../../src/capabilities/templates/page-state.js';
import type { RunningApp } from '../../../kit/running-app.js';
import { useFakes } from '../../../kit/fakes.js';
import { userContext, viewSubmission } from '../../../kit/slack-payloads.js';
import { expectNoRejectedSlackCalls, textOf } from '../../../kit/slack-checks.js';
import { stateValues } from '../../../kit/view-state.js';
import { TEMPLATES } from '../../../../src/capabilities/templates/actions.js';
import { LINKS } from '../../../../src/capabilities/links/actions.js';

/**
 * One budget of work in flight for the whole process (MAX_WORK_IN_FLIGHT): once full, every kind of request
 * is answered "busy" at once, the way its kind allows, nothing queues, and /readyz says the app is saturated.
 */
const fakes = useFakes();
let app: RunningApp | undefined;
afterEach(async () => {
  expectNoRejectedSlackCalls(fakes.slack);
  await app?.stop();
  app = undefined;
});

describe.each(['http', 'socket'] as const)('admission under load (%s mode)', (mode) => {
  const metrics = async () => (await fetch(`${app?.baseUrl}/metrics`)).text();

  it('answers every kind of request "busy" while the budget is full, and takes work again once it frees', async () => {
    // BULK_CONCURRENCY 1: the least budget the configuration allows is twice the bulk concurrency.
    app = await fakes.startApp(mode, { env: { MAX_WORK_IN_FLIGHT: '2', BULK_CONCURRENCY: '1' } });
    // Two templates commands whose Mint answers are held hold the whole budget until the test lets them go: a
    // loaded machine cannot free it early (a call timing out would), however long the checks below take.
    let answer: () => void = () => undefined;
    fakes.mint.holdAnswers = new Promise<void>((resolve) => (answer = resolve));
    const holders = [
      await app.command(`templates ${DEMO_CONTRACT_ID}`),
      await app.command(`templates ${DEMO_CONTRACT_ID}`),
    ];
    expect(holders.map((h) => h.ack)).toEqual([undefined, undefined]);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('list_templates').length === 2, 3_000, 'both Mint calls');

    // A command: the ack itself says so.
    for (const text of ['link', 'help']) {
      expect((await app.command(text)).ack).toEqual({ response_type: 'ephemeral', text: BUSY_TEXT });
    }
    // A click on a page button: acknowledged, and the clicker told through its response_url.
    const page = {
      blocks: [
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: TEMPLATES.buttons.next.actionId,
              text: { type: 'plain_text', text: 'Next' },
              value: encodePageState({ contractId: DEMO_CONTRACT_ID, offset: 10, limit: 10, order: 'desc' }),
            },
          ],
        },
      ],
    };
    const clickUrl = await app.click(page, TEMPLATES.buttons.next.actionId);
    const [note] = await fakes.slack.waitForResponse(clickUrl);
    expect(note?.body).toMatchObject({ response_type: 'ephemeral', replace_original: false, text: BUSY_TEXT });
    // A form submission: an inline error; the form stays open and filled.
    const form = { id: 'V0BUSY', callback_id: LINKS.forms.create.callbackId, ...linkFormView() };
    const submitted = await app.interact(viewSubmission(form, stateValues(form, { [LINK_BLOCKS.nftId]: 'nft-busy' })));
    expect(submitted).toEqual({
      response_action: 'errors',
      errors: {
        [LINK_BLOCKS.nftId]:
          'The app is very busy right now, so it did not start this. Please try again in a few seconds.',
      },
    });
    // A shortcut: a notice in a modal opened with its trigger.
    await app.shortcut(LINKS.shortcuts.create.callbackId);
    const notice = await fakes.slack.waitForCall('views.open');
    expect(textOf(notice.params.view)).toContain('very busy');
    // An event: acknowledged, counted, and dropped.
    await app.event({ type: 'app_home_opened', user: 'U0ALICE01', channel: 'D0ALICE01', tab: 'home' });
    // A workflow step: failed at once with what to do (it would wait for ever otherwise); nothing is sent.
    const step = await fakes.slack.stepEnd(
      await app.runStep(LINKS.steps.createLink.callbackId, { nft_id: 'nft-busy', acting_user: userContext() }),
    );
    expect(step).toMatchObject({ state: 'failed', error: expect.stringContaining('Mintlink is very busy right now') });

    const readyz = await fetch(`${app.baseUrl}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toEqual({ status: 'not ready', reason: 'saturated: 2 of 2 requests in progress' });
    const counted = await metrics();
    for (const [kind, n] of [
      ['command', 2],
      ['action', 1],
      ['view', 1],
      ['shortcut', 1],
      ['event', 1],
      ['step', 1],
    ] as const) {
      expect(counted).toContain(`mintlink_busy_refusals_total{kind="${kind}"} ${n}`);
    }
    expect(counted).toMatch(/^mintlink_work_in_flight 2$/m);
    expect(fakes.mint.requests).toHaveLength(2); // nothing refused reached the service
    expect(fakes.slack.callsTo('views.publish')).toEqual([]);

    // The held calls are answered; their users get their pages; the budget frees and new work is taken.
    answer();
    for (const holder of holders) {
      const [page] = await fakes.slack.waitForResponse(holder.fields.response_url ?? '', 1, 8_000);
      expect(textOf(page?.body)).toContain('Templates');
    }
    await app.waitForIdle();
    expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
    const { open } = await app.commandOpeningModal('link');
    expect(open.params.view).toMatchObject({ callback_id: LINKS.forms.create.callbackId });
  });
});

// A retry of a workflow step comes as an event, the same whatever the transport: one mode is enough.
describe('admission of a retried workflow step', () => {
  it("does not fail a step whose first delivery is running when Slack's retry of it finds the app busy", async () => {
    app = await fakes.startApp('http', {
      env: { MAX_WORK_IN_FLIGHT: '2', BULK_CONCURRENCY: '1', MINT_API_TIMEOUT_MS: '3000' },
    });
    // One place is held by a templates command whose Mint call hangs (until its 3 s timeout), the other by the step.
    fakes.mint.failNext('list_templates', { mode: 'hang' }, 1);
    await app.command(`templates ${DEMO_CONTRACT_ID}`);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('list_templates').length === 1, 3_000, 'the templates call');
    fakes.mint.latencyMs = 1_000;
    const event = fakes.slack.stepExecution(LINKS.steps.createLink.callbackId, {
      nft_id: 'nft-retry',
      acting_user: userContext(),
    });
    await app.event(event);
    await fakes.slack.waitFor(() => fakes.mint.requestsTo('create_link').length === 1, 3_000, 'the Mint call');
    await app.event(event, 1); // the budget is full: acknowledged, not failed
    const ended = await fakes.slack.stepEnd(String(event.function_execution_id));
    expect(ended.state).toBe('completed');
    await app.waitForIdle();
    expect(fakes.slack.calls.filter((c) => c.method.startsWith('functions.'))).toHaveLength(1);
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
  });
});
