import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useApp, useFakes } from '../../../kit/fakes.js';
import type { RunningApp } from '../../../kit/running-app.js';
import { eventCallback, userContext } from '../../../kit/slack-payloads.js';
import { TEST_USER_ID } from '../../../kit/slack-ids.js';
import { TEST_DATABASE_URL, postgresDatabase, type TestDatabase } from '../../../kit/store-engines.js';
import { deliverEvent } from '../../../kit/workspaces.js';
import { LINKS } from '../../../../src/capabilities/links/actions.js';

const AGAIN = 'event delivered again; already handled';

/** app_home_opened as Slack sends it (one event_id: a retry sends this same body again). */
const homeOpened = (user = TEST_USER_ID) =>
  eventCallback({ type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' });

const publishesTo = (fakes: ReturnType<typeof useFakes>, user: string) =>
  fakes.slack.callsTo('views.publish').filter((call) => call.params.user_id === user);

/*
 * Issue 29: every event does its work once whatever Slack delivers again. A retry carries the first delivery's
 * event_id: over HTTP with x-slack-retry-num / x-slack-retry-reason, over Socket Mode in a new envelope with
 * retry_attempt / retry_reason. Home is published on every app_home_opened, so a second publish is the work
 * done twice.
 */
describe('an event Slack delivers again does its work once (HTTP)', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http');

  it('runs a workflow step once and acknowledges its retry (Bolt leaves a step’s ack to its listener)', async () => {
    const app = running.app;
    const step = fakes.slack.stepExecution(LINKS.steps.createLink.callbackId, {
      nft_id: 'nft-once',
      acting_user: userContext(),
    });
    const event = eventCallback(step);
    await deliverEvent(app, event);
    const ended = await fakes.slack.stepEnd(String(step.function_execution_id));
    expect(ended.state).toBe('completed');
    await deliverEvent(app, event, 1); // answered 200 at once: unacknowledged, Bolt would answer 404 after 3 s
    await app.waitForLog((line) => line.msg === AGAIN && line.retryNum === 1);
    await app.waitForIdle();
    expect(fakes.mint.requestsTo('create_link')).toHaveLength(1);
    expect(fakes.slack.calls.filter((call) => call.method.startsWith('functions.'))).toHaveLength(1);
    expect(app.logs).not.toContain('was not acknowledged');
  });

  it('publishes Home once for app_home_opened and its retry with the retry headers', async () => {
    const app = running.app;
    const event = homeOpened('U0RETRY01');
    await deliverEvent(app, event);
    await fakes.slack.waitForCall('views.publish', (call) => call.params.user_id === 'U0RETRY01');
    await deliverEvent(app, event, 1);
    await app.waitForLog((line) => line.msg === AGAIN && line.retryNum === 1);
    await app.waitForIdle();
    expect(publishesTo(fakes, 'U0RETRY01')).toHaveLength(1);

    // Another event (its own event_id) from the same person is not a retry.
    await deliverEvent(app, homeOpened('U0RETRY01'));
    await fakes.slack.waitFor(() => publishesTo(fakes, 'U0RETRY01').length === 2, 5_000, 'the second publish');
  });
});

describe('an event Slack delivers again does its work once (Socket Mode)', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'socket');

  it('publishes Home once when the same event comes in a retry envelope', async () => {
    const app = running.app;
    const event = homeOpened('U0RETRY02');
    await fakes.slack.socketMode.send('events_api', event);
    await fakes.slack.waitForCall('views.publish', (call) => call.params.user_id === 'U0RETRY02');
    await fakes.slack.socketMode.send('events_api', event, 5_000, { attempt: 1, reason: 'timeout' });
    await app.waitForLog((line) => line.msg === AGAIN && line.retryNum === 1 && line.retryReason === 'timeout');
    await app.waitForIdle();
    expect(publishesTo(fakes, 'U0RETRY02')).toHaveLength(1);
  });
});

describe.runIf(TEST_DATABASE_URL)('two replicas on one PostgreSQL given the same event', () => {
  const fakes = useFakes();
  let db: TestDatabase;
  let replicas: RunningApp[] = [];

  beforeAll(async () => {
    db = await postgresDatabase();
    replicas = await Promise.all([1, 2].map(() => fakes.startApp('http', { env: { DATABASE_URL: db.databaseUrl } })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await db?.drop();
  });

  it('does the work once: the first delivery and Slack’s retry reach both at the same moment', async () => {
    const [a, b] = replicas as [RunningApp, RunningApp];
    for (let i = 1; i <= 5; i += 1) {
      const user = `U0TWICE0${i}`;
      const event = homeOpened(user);
      await Promise.all([deliverEvent(a, event), deliverEvent(b, event, 1)]);
      await Promise.all([a.waitForIdle(), b.waitForIdle()]);
      expect(publishesTo(fakes, user)).toHaveLength(1);
    }
    const again = [a, b].flatMap((replica) => replica.logLines.filter((line) => line.msg === AGAIN));
    expect(again).toHaveLength(5);
  });
});
