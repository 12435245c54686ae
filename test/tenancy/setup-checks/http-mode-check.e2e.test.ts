import { describe, expect, it } from 'vitest';
import { judgeEventsAnswer } from '../../../src/tenancy/setup-checks/slack-checks.js';
import { useFakes } from '../../kit/fakes.js';

const EVENTS = 'https://mintlink.example.com/slack/events';

describe('the HTTP mode check of PUBLIC_URL', () => {
  const fakes = useFakes();

  it('recognises the app’s own answer to an unsigned request', async () => {
    const app = await fakes.startApp('http');
    try {
      const response = await fetch(`${app.baseUrl}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        redirect: 'manual',
      });
      await response.body?.cancel();
      expect(judgeEventsAnswer(EVENTS, response)).toMatchObject({
        state: 'pass',
        summary: `HTTP mode: ${EVENTS} reaches the app`,
      });
    } finally {
      await app.stop();
    }
  });

  it('reports a login wall or proxy in front: a 401 that is not the app’s, or a redirect', () => {
    expect(judgeEventsAnswer(EVENTS, new Response(null, { status: 401 }))).toMatchObject({
      state: 'fail',
      summary: `HTTP mode: ${EVENTS} answers 401, but not as the app does: a login wall or a proxy is in front of it`,
    });
    const redirect = new Response(null, {
      status: 302,
      headers: { location: 'https://user:secret@sso.example.com/login' },
    });
    const item = judgeEventsAnswer(EVENTS, redirect);
    expect(item).toMatchObject({
      state: 'fail',
      summary: `HTTP mode: ${EVENTS} redirects (302 to https://sso.example.com/login), and Slack does not follow redirects: a login wall or a proxy is in front of the app`,
    });
  });
});
