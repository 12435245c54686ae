import { describe, expect, it } from 'vitest';
import { useApp, useFakes } from '../kit/fakes.js';
import { DISTRIBUTION_ENV, connectMintAccount, install, oauthApp } from '../kit/workspaces.js';

/*
 * Review probe (issue 22, token rotation): Slack revokes a refresh token once it is used. Requests of one
 * workspace that come together while its token is due a renewal must renew it once, not once each (the others
 * fail with invalid_refresh_token, each logged as an error by Bolt).
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
    await Promise.all(Array.from({ length: 5 }, () => app.command('link', { team_id: 'T0ROTATE01' })));
    await app.waitForIdle();
    const refreshes = fakes.slack.callsTo('oauth.v2.access').filter((c) => c.params.grant_type === 'refresh_token');
    const errors = app.logLines.filter((l) => l.level === 'error').map((l) => l.msg);
    expect({ refreshes: refreshes.length, errors }).toEqual({ refreshes: 1, errors: [] });
  });
});
