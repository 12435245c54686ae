import type { CapabilityDeps } from '../../deps.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { patientSlackClient } from '../../platform/slack/web-api/patient-client.js';
import { OPERATOR_ACCOUNT, keyIdSecret, mintKeyId } from '../../tenancy/mint-accounts/mint-call-recorder.js';
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

/** How long the Socket Mode item's answer is used before apps.connections.open is asked again. */
const SOCKET_CHECK_MS = 5 * 60_000;

/**
 * The setup doctor's checks of one workspace, asked of Slack and the database, as the checklist shows them. In
 * single-workspace mode they cover the operator's part too (the database, the mode); in distribution mode only
 * what the workspace's admins can fix.
 */
export class SetupChecker {
  private readonly distributed: boolean;
  /**
   * apps.connections.open is Tier 1 (about one a minute) and is what Socket Mode itself needs to reconnect: the
   * checklist asks it at most once per SOCKET_CHECK_MS, and shows the last answer in between.
   */
  private socketChecked: { item: SetupItem; at: number } | undefined;

  constructor(
    private readonly deps: CapabilityDeps,
    private readonly logger: Logger,
  ) {
    this.distributed = deps.config.distribution !== undefined;
  }

  /** Every item of the workspace's checklist (its app's workspace when undefined). */
  async check(teamId: string | undefined): Promise<SetupItem[]> {
    const { deps, distributed } = this;
    const team = teamId ?? deps.settings.homeTeamId;
    const client = await deps.workspaces.slack(team);
    const operator = distributed ? [] : await this.operatorItems();
    if (operator.some((item) => item.slackUnreachable)) return [...operator, BOT_TOKEN_NOT_CHECKED];
    const { item, identity } = await checkBotToken(client, distributed ? 'workspace' : 'operator', undefined); // no URL in Slack
    if (!identity) return [...operator, item];
    const workspace = await checkWorkspaceSetup({
      client,
      settings: deps.settings.current(team).values,
      place: deps.settings.envOnly ? 'env' : 'slack',
      naming: SLACK_NAMING,
      mint: () => this.mintState(team),
    });
    return [...operator, item, ...workspace];
  }

  /** Whether a Mint call of `account` (a workspace, or the operator's) changes the Mint item of `teamId`'s checklist. */
  callConcerns(account: string, teamId: string | undefined): boolean {
    return !this.distributed || teamId === account;
  }

  /** The Mint item alone, from the account and its last call (no call to Slack). */
  async mintItem(teamId: string | undefined): Promise<SetupItem> {
    const { account, last } = await this.mintState(teamId ?? this.deps.settings.homeTeamId);
    return checkMintService(account, last, SLACK_NAMING);
  }

  /** The workspace's Mint account, and its last call: the newest this process made, or any process recorded. */
  private async mintState(team: string | undefined) {
    const { deps } = this;
    if (!this.distributed) {
      const stored = await deps.store.mintCallOutcomes.get(OPERATOR_ACCOUNT);
      return {
        account: {
          kind: 'operator',
          keyId: mintKeyId(deps.config.mint.apiKey ?? '', keyIdSecret(deps.config)),
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

  /** Single-workspace mode: the database and the mode, which the operator set up. */
  private async operatorItems(): Promise<SetupItem[]> {
    const { config } = this.deps;
    const database = await checkMigrated(this.deps.store, undefined).catch((error: unknown) =>
      fail(
        'database',
        `Database: ${databaseProblemForSlack(error, config.store)}`,
        'Check DATABASE_URL and that the database runs.',
      ),
    );
    const mode =
      config.mode === 'socket' && config.slack.appToken
        ? await this.socketModeItem(config.slack.appToken)
        : await checkHttpMode(config.slack.publicUrl);
    return [database, mode];
  }

  private async socketModeItem(appToken: string): Promise<SetupItem> {
    const checked = this.socketChecked;
    if (checked && Date.now() - checked.at < SOCKET_CHECK_MS) return checked.item;
    const item = await checkSocketMode(patientSlackClient(this.deps, this.logger, appToken), undefined);
    this.socketChecked = { item, at: Date.now() };
    return item;
  }
}
