import { describe, expect, it } from 'vitest';
import { useApp, useFakes } from '../../kit/fakes.js';
import { DISTRIBUTION_ENV, connectMintAccount, install, oauthApp } from '../../kit/workspaces.js';

/*
 * Token rotation: Slack takes a refresh token once. Requests of one workspace that come together while its
 * token is due a renewal renew it once, not once each (the others would fail with invalid_refresh_token).
 */
describe('token rotation with requests at once', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });

  it('renews a token about to expire once for five requests at once', async () => {
    const app = running.app;
    fakes.slack.oauthApp = { ...oauthApp(app, true), expiresIn: 600 }; // within Bolt's 2-hour window
    fakes.slack.nextInstall = { teamId: 'T0ROTATE01', teamName: 'Rotating', userId: 'U0ROTATE01' };
    await install(app);
    await connectMintAccount(app, 'T0ROTATE01');
    fakes.slack.oauthApp = { ...fakes.slack.oauthApp, expiresIn: 43_200 }; // renewed tokens last 12 hours, as Slack's
    await Promise.all(Array.from({ length: 5 }, () => app.command('link', { team_id: 'T0ROTATE01' })));
    await app.waitForIdle();
    const refreshes = fakes.slack.callsTo('oauth.v2.access').filter((c) => c.params.grant_type === 'refresh_token');
    const errors = app.logLines.filter((l) => l.level === 'error').map((l) => l.msg);
    expect({ refreshes: refreshes.length, errors }).toEqual({ refreshes: 1, errors: [] });
    // Every command was authorized and opened its form, all with the renewed token.
    const opened = fakes.slack.callsTo('views.open');
    expect(opened).toHaveLength(5);
    expect(new Set(opened.map((c) => c.token)).size).toBe(1);
  });
});
