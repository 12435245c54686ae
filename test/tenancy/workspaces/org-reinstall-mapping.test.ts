import { describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installAsNext } from '../../kit/listener-installs.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { queryRows } from '../../kit/raw-sql.js';
import { DISTRIBUTION_ENV, orgInstallClick, uninstallEvent } from '../../kit/workspaces.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';

const GRID_ORG = 'E0GRID0001';
const GRID_WORKSPACE = 'T0GRIDWS01';
const GRID_USER = 'W0GRIDUSR1';

/*
 * Review probe (issue 22 fixes): an org-wide uninstall deletes the records of the workspaces it served; after
 * the organization installs the app again, they must be recorded again (listed from Slack, auth.teams.list),
 * or their requests are refused and background work for them finds no installation (WorkspaceGone).
 */
describe('an org-wide installation removed and installed again', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { ...DISTRIBUTION_ENV, DATABASE_URL: sqliteDatabase().databaseUrl } });

  const installOrg = async () => {
    const from = running.app.logLines.length;
    fakes.slack.orgWorkspaces.set(GRID_ORG, [{ id: GRID_WORKSPACE, name: 'Grid workspace' }]);
    fakes.slack.nextInstall = {
      teamId: GRID_WORKSPACE,
      teamName: 'Grid workspace',
      enterprise: { id: GRID_ORG, name: 'Globex' },
      orgWide: true,
      userId: 'W0ORGADMIN',
    };
    await installAsNext(running.app, fakes.slack);
    await running.app.waitForLog(() =>
      running.app.logLines
        .slice(from)
        .some((line) => line.msg === 'the org-wide installation’s workspaces listed from Slack'),
    );
  };

  const clickInGridWorkspace = () =>
    orgInstallClick(running.app, fakes.slack, {
      teamId: GRID_WORKSPACE,
      userId: GRID_USER,
      enterpriseId: GRID_ORG,
      channelId: 'C0GRID0001',
      actionId: LINKS.buttons.createFromHome.actionId,
    });
  const refusals = () =>
    running.app.logLines.filter(
      (line) => line.msg === 'request through an org-wide installation from a workspace it does not serve: refused',
    );

  it('records its workspaces again, and serves their requests', async () => {
    const app = running.app;
    const served = () =>
      queryRows(app.env.DATABASE_URL ?? '', `select team_id, installation_id from installation_teams`);
    await installOrg();
    await clickInGridWorkspace();
    expect(await served()).toEqual([{ team_id: GRID_WORKSPACE, installation_id: `E${GRID_ORG}` }]);

    await uninstallEvent(app, GRID_WORKSPACE, 'app_uninstalled', { enterpriseId: GRID_ORG, orgWide: true });
    await app.waitForLog((line) => line.msg === 'the app was removed from a workspace: its work is stopped');
    expect(await served()).toEqual([]);

    await installOrg();
    await clickInGridWorkspace();
    expect(await served()).toEqual([{ team_id: GRID_WORKSPACE, installation_id: `E${GRID_ORG}` }]);
    expect(refusals()).toEqual([]);
  });
});
