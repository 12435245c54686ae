import { describe, expect, it } from 'vitest';
import { useApp, useFakes } from '../kit/fakes.js';
import { queryRows } from '../kit/raw-sql.js';
import { TEST_APP_ID } from '../kit/slack-ids.js';
import { formBody } from '../kit/slack-payloads.js';
import { DISTRIBUTION_ENV, install, oauthApp, uninstallEvent } from '../kit/workspaces.js';

const GRID_ORG = 'E0GRID0001';
const GRID_WORKSPACE = 'T0GRIDWS01';
const GRID_USER = 'W0GRIDUSR1';

/*
 * Review probe (issue 22 fixes): which org-wide installation serves a workspace is noted once per process
 * (installation-store.ts orgTeamsNoted). An org-wide uninstall deletes those notes; after the organization
 * installs the app again, its workspaces' requests must note them again, or background work for them finds
 * no installation (WorkspaceGone) until the process restarts.
 */
describe('an org-wide installation removed and installed again', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });

  const installOrg = async () => {
    fakes.slack.oauthApp = oauthApp(running.app);
    fakes.slack.nextInstall = {
      teamId: GRID_WORKSPACE,
      teamName: 'Grid workspace',
      enterprise: { id: GRID_ORG, name: 'Globex' },
      orgWide: true,
      userId: 'W0ORGADMIN',
    };
    expect((await install(running.app)).page.html).toContain('the Globex organization');
  };

  const clickInGridWorkspace = async () => {
    const click = {
      type: 'block_actions',
      user: { id: GRID_USER, username: 'u', name: 'u', team_id: GRID_WORKSPACE },
      api_app_id: TEST_APP_ID,
      token: 'deprecated-verification-token',
      container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0GRID0001', is_ephemeral: false },
      trigger_id: fakes.slack.triggerId(),
      team: null,
      enterprise: { id: GRID_ORG, name: 'Globex' },
      is_enterprise_install: true,
      channel: { id: 'C0GRID0001', name: 'general' },
      response_url: fakes.slack.responseUrl(),
      actions: [{ type: 'button', action_id: 'some_button', block_id: 'b', action_ts: `${Date.now() / 1000}` }],
    };
    const sent = await running.app.postSigned(
      '/slack/events',
      formBody({ payload: JSON.stringify(click) }),
      'application/x-www-form-urlencoded',
    );
    expect(sent.status).toBe(200);
    await running.app.waitForIdle();
  };

  it('notes its workspaces again from their requests', async () => {
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
  });
});
