import { describe, expect, it } from 'vitest';
import { NOT_SERVED_TEXT } from '../../../src/platform/slack/pipeline/org-workspace.js';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installAsNext } from '../../kit/listener-installs.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { queryRows } from '../../kit/raw-sql.js';
import { ephemeralText } from '../../kit/screen-text.js';
import { expectScreen } from '../../kit/screens.js';
import {
  DISTRIBUTION_ENV,
  connectMintAccount,
  deliverEvent,
  orgInstallClick,
  orgWorkspacesPayload,
  uninstallEvent,
} from '../../kit/workspaces.js';
import { LINKS } from '../../../src/capabilities/links/actions.js';

const ORG_A = 'E0GRIDA001';
const ORG_B = 'E0GRIDB001';
const A_WORKSPACE = 'T0GRIDA000';
const B_WORKSPACE = 'T0GRIDB007';
const B_PERSON = 'W0BPERSON1';
const LISTED = 'the org-wide installation’s workspaces listed from Slack';
const REMOVED = 'the app was removed from a workspace: its work is stopped';
const LEFT = 'workspaces left the org-wide installation: their work is stopped';

/*
 * Review of issue 29 (H1, Enterprise Grid and Slack Connect): two customers, each an organization with the app
 * installed org-wide. A person of customer B clicks a button of customer A's app in a channel both share: the
 * payload names no team, B's workspace in user.team_id, and A's organization. That request must neither make
 * B's workspace A's (A's uninstall would then delete B's Mint key, and B's own leave would keep it) nor be
 * scoped to B's workspace (A's app acting on B's rows with B's Mint key): it is refused, and the person told.
 */
describe('two org-wide installations and a channel they share', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { ...DISTRIBUTION_ENV, DATABASE_URL: sqliteDatabase().databaseUrl } });
  const rows = (sql: string) => queryRows(running.app.env.DATABASE_URL ?? '', sql);
  const mintKeys = async () =>
    (await rows(`select team_id from mint_accounts order by team_id`)).map((row) => row.team_id);

  async function installOrg(enterpriseId: string, name: string, workspace: string) {
    const app = running.app;
    const from = app.logLines.length;
    fakes.slack.orgWorkspaces.set(enterpriseId, [{ id: workspace, name }]);
    fakes.slack.nextInstall = {
      teamId: workspace,
      teamName: name,
      enterprise: { id: enterpriseId, name },
      orgWide: true,
      userId: `W0ADMIN${enterpriseId.slice(-4)}`,
    };
    await installAsNext(app, fakes.slack);
    await app.waitForLog(() =>
      app.logLines.slice(from).some((line) => line.msg === LISTED && line.installation === `E${enterpriseId}`),
    );
  }

  it('a click from the other customer’s workspace is refused and never ties that workspace to this org', async () => {
    const app = running.app;
    await installOrg(ORG_A, 'Acme', A_WORKSPACE);
    await installOrg(ORG_B, 'Beta', B_WORKSPACE);
    await connectMintAccount(app, A_WORKSPACE);
    await connectMintAccount(app, B_WORKSPACE);

    const url = await orgInstallClick(app, fakes.slack, {
      teamId: B_WORKSPACE,
      userId: B_PERSON,
      enterpriseId: ORG_A,
      channelId: 'C0SHARED01',
      actionId: LINKS.buttons.createFromHome.actionId,
    });
    const [told] = await fakes.slack.waitForResponse(url);
    expect(told?.body).toMatchObject({ response_type: 'ephemeral', text: NOT_SERVED_TEXT });
    await expectScreen('workspaces/org-click--workspace-not-served', ephemeralText(told?.body ?? {}));
    expect(fakes.slack.callsTo('views.open')).toEqual([]);
    expect(await rows(`select installation_id from installation_teams where team_id = '${B_WORKSPACE}'`)).toEqual([
      { installation_id: `E${ORG_B}` },
    ]);

    // Customer A removes the app: customer B's workspace keeps its Mint account.
    await uninstallEvent(app, A_WORKSPACE, 'app_uninstalled', { enterpriseId: ORG_A, orgWide: true });
    await app.waitForLog((line) => line.msg === REMOVED);
    expect(await mintKeys()).toEqual([B_WORKSPACE]);

    // Customer B removes it from its workspace: that one is B's to remove.
    await deliverEvent(app, orgWorkspacesPayload('team_access_revoked', ORG_B, [B_WORKSPACE]));
    await app.waitForLog((line) => line.msg === LEFT);
    expect(app.logLines.find((line) => line.msg === LEFT)).toMatchObject({ workspaces: [B_WORKSPACE] });
    expect(await mintKeys()).toEqual([]);
  });

  it('a command through an org-wide installation from a workspace it does not serve is refused, and says so', async () => {
    const app = running.app;
    await installOrg(ORG_A, 'Acme', A_WORKSPACE);
    await connectMintAccount(app, 'T0STRANGER');
    const { ack } = await app.command('link', {
      team_id: 'T0STRANGER',
      user_id: B_PERSON,
      enterprise_id: ORG_A,
      is_enterprise_install: 'true',
    });
    expect(ack).toMatchObject({ response_type: 'ephemeral', text: NOT_SERVED_TEXT });
    expect(fakes.slack.callsTo('views.open')).toEqual([]);
    expect(
      app.logLines.some(
        (line) =>
          line.msg === 'request through an org-wide installation from a workspace it does not serve: refused' &&
          line.team === 'T0STRANGER',
      ),
    ).toBe(true);
    expect(await rows(`select team_id from installation_teams where team_id = 'T0STRANGER'`)).toEqual([]);
  });
});
