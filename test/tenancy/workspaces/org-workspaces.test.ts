import { describe, expect, it } from 'vitest';
import { useFakes, useListenerApp } from '../../kit/fakes.js';
import { installAsNext, installInProcess } from '../../kit/listener-installs.js';
import { sqliteDatabase } from '../../kit/store-engines.js';
import { queryRows } from '../../kit/raw-sql.js';
import { TEST_APP_ID } from '../../kit/slack-ids.js';
import {
  DISTRIBUTION_ENV,
  OTHER_TEAM_ID,
  OTHER_USER_ID,
  connectMintAccount,
  deliverEvent,
  newEventId,
  orgWorkspacesPayload,
} from '../../kit/workspaces.js';

const GRID_ORG = 'E0GRID0001';
const ORG_INSTALLATION = `E${GRID_ORG}`;
const LISTED = 'the org-wide installation’s workspaces listed from Slack';
const LEFT = 'workspaces left the org-wide installation: their work is stopped';
const REJOINED = 'a leave that happened before the workspaces joined the org-wide installation again: nothing changed';
const STALE_JOIN = 'a join that happened before the workspaces left the org-wide installation: nothing changed';

/** The organization's workspaces, as auth.teams.list names them. */
const gridWorkspaces = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `T0GRID${String(i).padStart(4, '0')}`, name: `Grid ${i}` }));

/*
 * Issue 29, Enterprise Grid: the workspaces an org-wide installation serves are learnt from Slack
 * (auth.teams.list, every page, with the installation's own bot token), not only from requests; a workspace
 * leaving it (team_access_revoked, or app_uninstalled_team naming this app) has its work stopped and its data
 * treated as an uninstall of that workspace alone, while the organization's installation stays for the others.
 */
describe('an org-wide installation and its workspaces', () => {
  const fakes = useFakes();
  const running = useListenerApp(fakes, { env: { ...DISTRIBUTION_ENV, DATABASE_URL: sqliteDatabase().databaseUrl } });
  const rows = (sql: string) => queryRows(running.app.env.DATABASE_URL ?? '', sql);
  const served = async () =>
    (
      await rows(
        `select team_id from installation_teams where installation_id = '${ORG_INSTALLATION}' order by team_id`,
      )
    ).map((row) => row.team_id);

  async function installOrg() {
    const app = running.app;
    const from = app.logLines.length;
    fakes.slack.nextInstall = {
      teamId: 'T0GRID0000',
      teamName: 'Grid workspace',
      enterprise: { id: GRID_ORG, name: 'Globex' },
      orgWide: true,
      userId: 'W0ORGADMIN',
    };
    await installAsNext(app, fakes.slack);
    await app.waitForLog(() => app.logLines.slice(from).some((line) => line.msg === LISTED));
  }

  it('records every workspace auth.teams.list names, page after page, except one with its own installation', async () => {
    const workspaces = gridWorkspaces(450);
    // A workspace of the organization that installed the app itself keeps its own installation.
    await installInProcess(running.app, fakes.slack, { teamId: 'T0GRID0007', userId: 'W0OWNINST7' });
    fakes.slack.orgWorkspaces.set(GRID_ORG, workspaces);
    await installOrg();

    const expected = workspaces.map((w) => w.id).filter((id) => id !== 'T0GRID0007');
    expect(await served()).toEqual(expected);
    const pages = fakes.slack.callsTo('auth.teams.list');
    expect(pages.length).toBe(3);
    const orgToken = pages[0]?.token ?? '';
    expect(fakes.slack.issuedTokens.get(orgToken)).toMatchObject({ enterpriseId: GRID_ORG, teamId: undefined });
    expect(pages.every((page) => page.token === orgToken)).toBe(true);
    expect(running.app.logLines.find((line) => line.msg === LISTED && line.workspaces === 450)).toMatchObject({
      recorded: 449,
    });
  });

  it('a workspace leaving the org-wide installation stops its work alone; the org keeps the others', async () => {
    const app = running.app;
    fakes.slack.orgWorkspaces.set(GRID_ORG, gridWorkspaces(3));
    await installOrg();
    await installInProcess(app, fakes.slack, { teamId: OTHER_TEAM_ID, userId: OTHER_USER_ID });
    for (const team of ['T0GRID0000', 'T0GRID0001', 'T0GRID0002']) await connectMintAccount(app, team);
    const from = app.logLines.length;

    // The organization removes the app from one of its workspaces; the event also names a workspace served by
    // an installation of its own, which is not the organization's to remove.
    await deliverEvent(app, orgWorkspacesPayload('team_access_revoked', GRID_ORG, ['T0GRID0001', OTHER_TEAM_ID]));
    await app.waitForLog((line) => line.msg === LEFT);
    await app.waitForIdle();

    expect(app.logLines.slice(from).filter((line) => line.msg === LEFT)).toEqual([
      expect.objectContaining({ workspaces: ['T0GRID0001'], kept: [OTHER_TEAM_ID], reason: 'team_access_revoked' }),
    ]);
    expect(await served()).toEqual(expect.arrayContaining(['T0GRID0000', 'T0GRID0002']));
    expect(await served()).not.toContain('T0GRID0001');
    expect(
      await rows(`select id from installations where id in ('${ORG_INSTALLATION}', 'T${OTHER_TEAM_ID}') order by id`),
    ).toEqual([{ id: ORG_INSTALLATION }, { id: `T${OTHER_TEAM_ID}` }]);
    const keys = await rows(
      `select team_id from mint_accounts where team_id in ('T0GRID0000', 'T0GRID0001', 'T0GRID0002', '${OTHER_TEAM_ID}') order by team_id`,
    );
    expect(keys.map((row) => row.team_id)).toEqual(['T0GRID0000', 'T0GRID0002', OTHER_TEAM_ID]);
    // The removal of the left workspace's Mint account is audited in that workspace.
    expect(await rows(`select team_id from audit_log where actor_id = 'system' and team_id like 'T0GRID%'`)).toEqual([
      { team_id: 'T0GRID0001' },
    ]);
  });

  it('app_uninstalled_team naming this app and a workspace is the same; naming another app changes nothing', async () => {
    const app = running.app;
    fakes.slack.orgWorkspaces.set(GRID_ORG, gridWorkspaces(3));
    await installOrg();
    const uninstalledTeam = (appId: string, teamId: string) => ({
      ...orgWorkspacesPayload('team_access_revoked', GRID_ORG, []),
      event_id: newEventId(),
      event: {
        type: 'app_uninstalled_team',
        app_id: appId,
        app_name: 'Mintlink',
        app_owner_id: 'W0OWNER01',
        user_id: 'W0ORGADMIN',
        team_id: teamId,
        team_domain: 'grid',
        event_ts: `${Math.floor(Date.now() / 1000)}.000300`,
      },
    });
    await deliverEvent(app, uninstalledTeam('A0SOMEOTHER', 'T0GRID0002'));
    await app.waitForIdle();
    expect(await served()).toContain('T0GRID0002');

    const from = app.logLines.length;
    await deliverEvent(app, uninstalledTeam(TEST_APP_ID, 'T0GRID0002'));
    await app.waitForLog(() => app.logLines.slice(from).some((line) => line.msg === LEFT));
    expect(await served()).not.toContain('T0GRID0002');
    expect(await served()).toContain('T0GRID0000');
  });

  it('team_access_granted records the workspaces that joined', async () => {
    const app = running.app;
    fakes.slack.orgWorkspaces.set(GRID_ORG, gridWorkspaces(1));
    await installOrg();
    await deliverEvent(app, orgWorkspacesPayload('team_access_granted', GRID_ORG, ['T0GRIDNEW1', 'T0GRIDNEW2']));
    await app.waitForLog((line) => line.msg === 'workspaces joined the org-wide installation');
    expect(await served()).toEqual(expect.arrayContaining(['T0GRIDNEW1', 'T0GRIDNEW2']));
  });

  it('a leave or a join delivered late (Slack’s retry) after the opposite, newer one changes nothing', async () => {
    const app = running.app;
    fakes.slack.orgWorkspaces.set(GRID_ORG, gridWorkspaces(1));
    await installOrg();
    const from = app.logLines.length;
    const logged = (msg: string) => app.logLines.slice(from).filter((line) => line.msg === msg);
    const now = Math.floor(Date.now() / 1000);
    const keys = async () =>
      (await rows(`select team_id from mint_accounts where team_id = 'T0GRIDNEW1'`)).map((row) => row.team_id);

    // The workspace left four minutes ago and joined again since; its Mint account was connected after that.
    await deliverEvent(app, orgWorkspacesPayload('team_access_granted', GRID_ORG, ['T0GRIDNEW1'], now));
    await app.waitForLog(() => logged('workspaces joined the org-wide installation').length > 0);
    await connectMintAccount(app, 'T0GRIDNEW1');
    // Slack's last retry of the leave comes now.
    await deliverEvent(app, orgWorkspacesPayload('team_access_revoked', GRID_ORG, ['T0GRIDNEW1'], now - 240), 2);
    await app.waitForLog(() => logged(REJOINED).length > 0);
    expect(logged(REJOINED)[0]).toMatchObject({
      workspaces: ['T0GRIDNEW1'],
      eventTime: now - 240,
    });
    expect(logged(LEFT)).toEqual([]);
    expect(await served()).toContain('T0GRIDNEW1');
    expect(await keys()).toEqual(['T0GRIDNEW1']);

    // It leaves now; a join from before that, delivered late, does not bring it back.
    await deliverEvent(app, orgWorkspacesPayload('team_access_revoked', GRID_ORG, ['T0GRIDNEW1'], now + 1));
    await app.waitForLog(() => logged(LEFT).length > 0);
    expect(await keys()).toEqual([]);
    await deliverEvent(app, orgWorkspacesPayload('team_access_granted', GRID_ORG, ['T0GRIDNEW1'], now - 60), 1);
    await app.waitForLog(() => logged(STALE_JOIN).length > 0);
    expect(await served()).not.toContain('T0GRIDNEW1');
  });
});
