import { afterEach, describe, expect, it } from 'vitest';
import { useFakes } from '../../kit/fakes.js';
import type { RunningApp } from '../../kit/running-app.js';
import { TEST_DATABASE_URL, postgresDatabase, sqliteDatabase, type TestDatabase } from '../../kit/store-engines.js';
import { DISTRIBUTION_ENV, connectMintAccount, install, oauthApp } from '../../kit/workspaces.js';

/*
 * Token rotation with two replicas of the app on one database: Slack takes a refresh token once (the fake Slack
 * too), so a token due for renewal is renewed by one replica, and the other's requests use the renewed token.
 */
describe('token rotation on two replicas', () => {
  const fakes = useFakes();
  let replicas: RunningApp[] = [];
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    replicas = [];
    await db?.drop();
  });

  async function bothRenewing(database: TestDatabase): Promise<void> {
    db = database;
    const env = { ...DISTRIBUTION_ENV, DATABASE_URL: database.databaseUrl };
    // One after the other: two starts at once on one SQLite file wait for each other's migrations, and say so.
    for (let i = 0; i < 2; i += 1) replicas.push(await fakes.startApp('http', { env }));
    const [a, b] = replicas as [RunningApp, RunningApp];
    fakes.slack.oauthApp = { ...oauthApp(a, true), expiresIn: 600 }; // within the two hours before expiry
    fakes.slack.nextInstall = { teamId: 'T0ROTATE01', teamName: 'Rotating', userId: 'U0ROTATE01' };
    await install(a);
    await connectMintAccount(a, 'T0ROTATE01');
    fakes.slack.oauthApp = { ...fakes.slack.oauthApp, expiresIn: 43_200 }; // renewed tokens last 12 hours

    // Both replicas receive requests of the workspace at once while its token is due.
    await Promise.all(
      [a, b].flatMap((replica) => Array.from({ length: 4 }, () => replica.command('link', { team_id: 'T0ROTATE01' }))),
    );
    await Promise.all([a, b].map((replica) => replica.waitForIdle()));

    const refreshes = fakes.slack.callsTo('oauth.v2.access').filter((c) => c.params.grant_type === 'refresh_token');
    expect(refreshes).toHaveLength(1);
    const logs = [a, b].map((replica) => replica.logs).join('\n');
    expect(logs).not.toContain('invalid_refresh_token');
    const problems = [a, b].flatMap((replica) =>
      replica.logLines.filter((l) => l.level === 'error' || l.level === 'warn'),
    );
    expect(problems.map((l) => l.msg)).toEqual([]);
    // Both served every request, all with the one renewed token.
    const opened = fakes.slack.callsTo('views.open');
    expect(opened).toHaveLength(8);
    const tokens = new Set(opened.map((c) => c.token));
    expect(tokens.size).toBe(1);
    expect(fakes.slack.issuedTokens.get([...tokens][0] ?? '')?.teamId).toBe('T0ROTATE01');
  }

  it.runIf(TEST_DATABASE_URL)('on PostgreSQL: one renewal, both replicas serve with the new token', async () => {
    await bothRenewing(await postgresDatabase());
  });

  it('on SQLite (two instances on one file): the same', async () => {
    await bothRenewing(sqliteDatabase());
  });
});
