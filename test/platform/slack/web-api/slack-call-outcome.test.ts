import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failedCallOutcome } from '../../../../src/platform/slack/web-api/slack-call-outcome.js';
import { slackErrorText } from '../../../../src/platform/blocks/slack-error-text.js';
import {
  patientWebClientOptions,
  webClientOptions,
} from '../../../../src/platform/slack/web-api/web-client-options.js';
import { FakeSlack } from '../../../kit/fake-slack.js';
import { freePort } from '../../../kit/free-port.js';

/* The one rule for posts the app must not make twice: a failed call is refused (send again) or unknown (never). */

let slack: FakeSlack;
/** The app's retries, with waits of a millisecond or two between them: how often a call is sent is the point. */
const hooks = { scrub: (text: string) => text, retryWaitMs: 1 };
/** The app's clients, with a deadline short enough for a test (the SDK's own timeout, as in the app). */
const client = (options = webClientOptions) =>
  new WebClient(slack.botToken, { ...options(slack.apiUrl, hooks), timeout: 300 });
/** How late Slack answers the calls that are "answered late": long after any deadline here. */
const LATE_MS = 5_000;
/**
 * The app's clients whose deadline passes the moment Slack has the call (Slack answers it late): what a deadline
 * does once the request has reached Slack, without waiting one out, and without a deadline so short that a loaded
 * machine would pass it before the request arrives.
 */
const clientMissingLateAnswers = (options = webClientOptions) =>
  new WebClient(slack.botToken, {
    ...options(slack.apiUrl, { ...hooks, transport: deadlineOnArrival }),
    timeout: LATE_MS * 2,
  });
const deadlineOnArrival: typeof fetch = (input, init) => {
  const arrived = slack.calls.length;
  const deadline = new AbortController();
  void slack
    .waitFor(() => slack.calls.length > arrived, LATE_MS, 'the call to reach Slack')
    .then(() => deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')));
  const signals = init?.signal ? [init.signal, deadline.signal] : [deadline.signal];
  return fetch(input, { ...init, signal: AbortSignal.any(signals) });
};
const failure = (call: Promise<unknown>) =>
  call.then(
    () => expect.fail('the call was expected to fail'),
    (error: unknown) => error,
  );

beforeAll(async () => {
  slack = await new FakeSlack().start();
});
afterAll(async () => {
  await slack.stop();
});
beforeEach(() => slack.reset());

describe('a Slack call that failed', () => {
  it('is unknown when the post got no answer in time: sent once, never again by the client', async () => {
    for (const options of [webClientOptions, patientWebClientOptions]) {
      slack.reset();
      slack.answerNext('chat.postMessage', { delayMs: LATE_MS }, 5); // Slack posts it, but answers late
      const error = await failure(clientMissingLateAnswers(options).chat.postMessage({ channel: 'C1', text: 'once' }));
      expect(failedCallOutcome(error)).toBe('unknown');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
    }
  });

  it('is unknown when the post got a 5xx (it may have been made), and Slack is not asked again', async () => {
    slack.answerNext('chat.postMessage', { status: 500 }, 5);
    const error = await failure(client().chat.postMessage({ channel: 'C1', text: 'once' }));
    expect(failedCallOutcome(error)).toBe('unknown');
    expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('is still tried again for calls that do the same thing twice (an update, a read)', async () => {
    slack.answerNext('chat.update', { status: 500 }, 2);
    await client()
      .chat.update({ channel: 'C1', ts: '1.000001', text: 'x' })
      .catch(() => undefined);
    expect(slack.callsTo('chat.update')).toHaveLength(3); // two 500s, then Slack's own answer
    slack.answerNext('usergroups.users.list', { delayMs: LATE_MS }, 3);
    const error = await failure(clientMissingLateAnswers().usergroups.users.list({ usergroup: 'S1' }));
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(3);
    expect(failedCallOutcome(error)).toBe('unknown');
  });

  it('is refused when Slack answered ok:false or 429, unless Slack says part of it may have been done', async () => {
    slack.channelsWithoutBot.add('C_OUT');
    expect(failedCallOutcome(await failure(client().chat.postMessage({ channel: 'C_OUT', text: 'x' })))).toBe(
      'refused',
    );
    slack.answerNext('chat.postMessage', { status: 429, headers: { 'retry-after': '30' } });
    expect(failedCallOutcome(await failure(client().chat.postMessage({ channel: 'C1', text: 'x' })))).toBe('refused');
    for (const code of ['internal_error', 'fatal_error']) {
      slack.answerNext('chat.postMessage', { body: { ok: false, error: code } });
      expect(failedCallOutcome(await failure(client().chat.postMessage({ channel: 'C1', text: 'x' })))).toBe('unknown');
    }
    slack.answerNext('chat.postMessage', { body: { ok: false, error: 'service_unavailable' } });
    expect(failedCallOutcome(await failure(client().chat.postMessage({ channel: 'C1', text: 'x' })))).toBe('refused');
  });

  it('is refused when no connection could be made: nothing reached Slack', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/api/`;
    const nowhere = new WebClient(slack.botToken, { ...webClientOptions(closed, hooks), timeout: 300 });
    expect(failedCallOutcome(await failure(nowhere.chat.postMessage({ channel: 'C1', text: 'x' })))).toBe('refused');
  });

  it('is unknown for anything else (an error the rule does not know)', () => {
    expect(failedCallOutcome(new Error('database unavailable'))).toBe('unknown');
    expect(failedCallOutcome(undefined)).toBe('unknown');
  });
});

describe('what the user is told of a failed call', () => {
  it('says Slack did not confirm it when it may have been done, and to try again when nothing reached Slack', async () => {
    slack.answerNext('chat.postMessage', { delayMs: LATE_MS });
    const late = await failure(clientMissingLateAnswers().chat.postMessage({ channel: 'C1', text: 'once' }));
    expect(slackErrorText(late)).toMatch(/did not confirm it .* check before trying again/);

    const closed = `http://127.0.0.1:${await freePort()}/api/`;
    const nowhere = new WebClient(slack.botToken, { ...webClientOptions(closed, hooks), timeout: 300 });
    const unreached = await failure(nowhere.chat.postMessage({ channel: 'C1', text: 'x' }));
    expect(slackErrorText(unreached)).toBe('the app could not reach Slack. Please try again in a moment.');
  });
});
