import { describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installAsNext, installInProcess } from '../../kit/listener-installs.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { queryRows } from '../../kit/raw-sql.js';
import {
  DISTRIBUTION_ENV,
  OTHER_TEAM_ID,
  OTHER_USER_ID,
  orgInstallClick,
  uninstallEvent,
} from '../../kit/workspaces.js';

const GRID_ORG = 'E0GRID0001';
const GRID_WORKSPACE = 'T0GRIDWS01';

/*
 * Review probe (issue 22, Enterprise Grid): which org-wide installation serves a workspace is learnt from
 * requests (installation_teams). A request authorized by org E's installation that names a workspace of
 * another customer (a Slack Connect interaction: an org-installed payload has team null and carries the
 * user's own team in user.team_id) must not make that workspace E's: E's uninstall must never stop another
 * customer's work or delete its Mint key, and that workspace keeps being reached with its own installation.
 */
describe('an org-wide installation and another customer’s workspace', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { ...DISTRIBUTION_ENV, DATABASE_URL: sqliteDatabase().databaseUrl } });

  it('removing the org-wide installation leaves a workspace with its own installation untouched', async () => {
    const app = running.app;
    // Customer 1: an Enterprise Grid organization, installed org-wide.
    fakes.slack.nextInstall = {
      teamId: GRID_WORKSPACE,
      teamName: 'Grid workspace',
      enterprise: { id: GRID_ORG, name: 'Globex' },
      orgWide: true,
      userId: 'W0ORGADMIN',
    };
    await installAsNext(app, fakes.slack);
    // Customer 2: a workspace of its own, installed and with its Mint account connected.
    await installInProcess(app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });

    // A person of customer 2 clicks a button of the org's app (a message in a channel both share).
    await orgInstallClick(app, fakes.slack, {
      teamId: OTHER_TEAM_ID,
      userId: OTHER_USER_ID,
      enterpriseId: GRID_ORG,
      channelId: 'C0SHARED01',
    });

    // The organization removes the app.
    await uninstallEvent(app, GRID_WORKSPACE, 'app_uninstalled', { enterpriseId: GRID_ORG, orgWide: true });
    await app.waitForLog((line) => line.msg === 'the app was removed from a workspace: its work is stopped');

    const rows = (sql: string) => queryRows(app.env.DATABASE_URL ?? '', sql);
    expect(await rows('select team_id from mint_accounts order by team_id')).toEqual(
      expect.arrayContaining([{ team_id: OTHER_TEAM_ID }]),
    );
    expect(
      await rows(`select team_id from audit_log where team_id = '${OTHER_TEAM_ID}' and actor_id = 'system'`),
    ).toEqual([]);
  });
});
