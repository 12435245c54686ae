import { describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installInProcess, listenerOAuthApp } from '../../kit/listener-installs.js';
import { eventCallback } from '../../kit/slack-payloads.js';
import { DISTRIBUTION_ENV, inTeam } from '../../kit/workspaces.js';

/*
 * Bolt's authorize of each request in distribution mode, from the installation store (the fast tier: the
 * installation stored as the OAuth flow stores it, test/kit/listener-installs.ts).
 */
describe('authorizing requests from the installation store', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: DISTRIBUTION_ENV });

  /*
   * Review probe (issue 22, "Bad input"): a request from a workspace with no installation is refused with one
   * log line, and no stack trace.
   */
  it('refuses a request from a workspace with no installation with one log line, without a stack', async () => {
    const app = running.app;
    const before = app.logLines.length;
    await app.deliverEvent(
      inTeam(eventCallback({ type: 'app_home_opened', user: 'U0NOBODY1', channel: 'D0X', tab: 'home' }), 'T0NOTINST1'),
    );
    await app.waitForLog((line) => line.msg === 'request from a workspace without an installation: refused');
    await app.waitForIdle();
    const said = app.logLines.slice(before).filter((l) => l.level === 'warn' || l.level === 'error');
    expect(said.map((l) => `${l.level}: ${l.msg}`)).toEqual([
      'warn: request from a workspace without an installation: refused',
    ]);
    expect(JSON.stringify(said)).not.toContain('    at ');
    expect(fakes.slack.callsTo('views.publish')).toHaveLength(0);
  });

  /*
   * Token rotation: Slack takes a refresh token once. Requests of one workspace that come together while its
   * token is due a renewal renew it once, not once each (the others would fail with invalid_refresh_token).
   */
  it('renews a token about to expire once for five requests at once', async () => {
    const app = running.app;
    fakes.slack.oauthApp = { ...listenerOAuthApp(true), expiresIn: 600 }; // within Bolt's 2-hour window
    const installed = await installInProcess(app, fakes.slack, { teamId: 'T0ROTATE01', userId: 'U0ROTATE01' });
    fakes.slack.oauthApp = { ...fakes.slack.oauthApp, expiresIn: 43_200 }; // renewed tokens last 12 hours, as Slack's
    await Promise.all(Array.from({ length: 5 }, () => app.command('link', { team_id: 'T0ROTATE01' })));
    await app.waitForIdle();
    const refreshes = fakes.slack.callsTo('oauth.v2.access').filter((c) => c.params.grant_type === 'refresh_token');
    const errors = app.logLines.filter((l) => l.level === 'error').map((l) => l.msg);
    expect({ refreshes: refreshes.length, errors }).toEqual({ refreshes: 1, errors: [] });
    // Every command was authorized and opened its form, all with the renewed token.
    const opened = fakes.slack.callsTo('views.open');
    expect(opened).toHaveLength(5);
    const tokens = new Set(opened.map((c) => c.token));
    expect(tokens.size).toBe(1);
    expect(tokens.has(installed)).toBe(false);
  });
});
