import type { App } from '@slack/bolt';
import { SETUP_CHECKLIST } from './actions.js';
import type { CapabilityDeps } from '../../deps.js';
import { OPERATOR_ACCOUNT, keyIdSecret, mintKeyId } from '../../tenancy/mint-accounts/mint-call-recorder.js';
import { type ButtonRequest, listen } from '../../platform/slack/pipeline/listen.js';
import { RequestEnded, refused } from '../../platform/slack/pipeline/request-ended.js';
import { checkMigrated, databaseProblemForSlack } from '../../tenancy/setup-checks/database-check.js';
import { fail, SLACK_NAMING, type SetupItem } from '../../tenancy/setup-checks/setup-items.js';
import {
  BOT_TOKEN_NOT_CHECKED,
  checkBotToken,
  checkHttpMode,
  checkSocketMode,
} from '../../tenancy/setup-checks/slack-checks.js';
import {
  type MintAccountState,
  checkMintService,
  checkWorkspaceSetup,
} from '../../tenancy/setup-checks/workspace-checks.js';
import { patientSlackClient } from '../../platform/slack/web-api/patient-client.js';
import { checklistBlocks } from './checklist-view.js';
import { SetupReports } from './setup-reports.js';

/** How long the Socket Mode item's answer is used before apps.connections.open is asked again. */
const SOCKET_CHECK_MS = 5 * 60_000;

/**
 * The Setup checklist at the top of App Home, for settings admins only, while some check of the workspace's
 * setup fails (the setup doctor's checks, asked of Slack and the database in the background, never during a
 * Home publish), with a button to check again. In single-workspace mode it covers the operator's part too
 * (the database, the mode); in distribution mode only what the workspace's admins can fix.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  const logger = deps.logger.child({ capability: 'setup-checklist' });
  const { config } = deps;
  const distributed = config.distribution !== undefined;
  const isAdmin = async (userId: string, teamId: string | undefined) =>
    (await deps.settingsAdmins.check(userId, teamId)).admin;

  const reports = new SetupReports(
    (teamId) => checkSetup(teamId),
    // What the checklist shows changed: the Homes of the workspace's settings admins show it now.
    (teamId) => {
      const team = teamId ?? deps.settings.homeTeamId;
      if (team) deps.home.refreshWorkspace(team, (userId) => isAdmin(userId, team));
    },
    (work) =>
      void deps.work
        .track(work)
        .catch((error: unknown) => logger.warn({ err: error }, 'could not check the setup of a workspace')),
  );
  // A Mint account connected, replaced, refused or accepted again: the Mint item is out of date.
  deps.mintAccounts.onChange(({ teamId }) => reports.forget(teamId));

  /** What a report was checked against: another value (the settings changed) makes it stale. */
  const settingsBasis = (teamId: string | undefined) => JSON.stringify(deps.settings.current(teamId).values);

  async function checkSetup(teamId: string | undefined): Promise<SetupItem[]> {
    const team = teamId ?? deps.settings.homeTeamId;
    const client = await deps.workspaces.slack(team);
    const operator = distributed ? [] : await operatorItems();
    if (operator.some((item) => item.slackUnreachable)) return [...operator, BOT_TOKEN_NOT_CHECKED];
    const { item, identity } = await checkBotToken(client, distributed ? 'workspace' : 'operator', undefined); // no URL in Slack
    if (!identity) return [...operator, item];
    const workspace = await checkWorkspaceSetup({
      client,
      settings: deps.settings.current(team).values,
      place: deps.settings.envOnly ? 'env' : 'slack',
      naming: SLACK_NAMING,
      mint: () => mintState(team),
    });
    return [...operator, item, ...workspace];
  }

  /** The workspace's Mint account, and its last call: the newest this process made, or any process recorded. */
  async function mintState(team: string | undefined) {
    if (!distributed) {
      const stored = await deps.store.mintCallOutcomes.get(OPERATOR_ACCOUNT);
      return {
        account: {
          kind: 'operator',
          keyId: mintKeyId(config.mint.apiKey ?? '', keyIdSecret(config)),
        } satisfies MintAccountState,
        last: deps.mintCalls ? deps.mintCalls.latest(OPERATOR_ACCOUNT, stored) : stored,
      };
    }
    const account = await deps.mintAccounts.account(team);
    const state: MintAccountState = account
      ? { kind: 'connected', keyId: await deps.mintAccounts.keyId(team) }
      : { kind: 'none' };
    const stored = team ? await deps.store.mintCallOutcomes.get(team) : undefined;
    return { account: state, last: team && deps.mintCalls ? deps.mintCalls.latest(team, stored) : stored };
  }

  // A Mint call ended: the Mint item of the workspace's checklist says so at its next Home publish.
  deps.mintCalls?.onCall((account) =>
    reports.replaceItem(
      (teamId) => !distributed || teamId === account,
      'mint',
      async (teamId) => {
        const { account: state, last } = await mintState(teamId ?? deps.settings.homeTeamId);
        return checkMintService(state, last, SLACK_NAMING);
      },
    ),
  );

  /** Single-workspace mode: the database and the mode, which the operator set up. */
  async function operatorItems(): Promise<SetupItem[]> {
    const database = await checkMigrated(deps.store, undefined).catch((error: unknown) =>
      fail(
        'database',
        `Database: ${databaseProblemForSlack(error, config.store)}`,
        'Check DATABASE_URL and that the database runs.',
      ),
    );
    const mode =
      config.mode === 'socket' && config.slack.appToken
        ? await socketModeItem(config.slack.appToken)
        : await checkHttpMode(config.slack.publicUrl);
    return [database, mode];
  }

  /**
   * apps.connections.open is Tier 1 (about one a minute) and is what Socket Mode itself needs to reconnect: the
   * checklist asks it at most once per SOCKET_CHECK_MS, and shows the last answer in between.
   */
  let socketChecked: { item: SetupItem; at: number } | undefined;
  async function socketModeItem(appToken: string): Promise<SetupItem> {
    if (socketChecked && Date.now() - socketChecked.at < SOCKET_CHECK_MS) return socketChecked.item;
    const item = await checkSocketMode(patientSlackClient(deps, logger, appToken), undefined);
    socketChecked = { item, at: Date.now() };
    return item;
  }

  deps.home.add({
    order: 0,
    top: true,
    blocks: async (userId, teamId) => {
      if (!(await isAdmin(userId, teamId))) return [];
      const report = reports.peek(teamId, settingsBasis(teamId));
      return report ? checklistBlocks(report, { checking: reports.checking(teamId), now: Date.now() }) : [];
    },
  });

  const checkAgain = async ({ body, teamId }: ButtonRequest) => {
    if (!(await deps.settingsAdmins.check(body.user.id, teamId, { fresh: true })).admin)
      throw refused(':no_entry: Only settings admins can check the setup.');
    const press = reports.press(teamId, settingsBasis(teamId));
    if (press.kind === 'too-soon')
      throw new RequestEnded(
        'busy',
        `:hourglass: The setup was checked ${Math.round((Date.now() - press.checkedAt) / 1000)} s ago: press Check again in ${Math.ceil(press.againInMs / 1000)} s.`,
      );
    deps.home.refreshIn(teamId, [body.user.id]); // the checklist says "checking…" while it runs
    await press.done;
    deps.home.refreshIn(teamId, [body.user.id]);
    if (press.kind === 'joined')
      throw new RequestEnded(
        'busy',
        ':hourglass: A check of the setup was already under way when you pressed: your Home shows its result.',
      );
  };
  on.declared(SETUP_CHECKLIST, { buttons: { checkAgain } });
}
