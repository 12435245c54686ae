import type { CapabilityDeps } from '../../deps.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import type { MintAccounts } from '../../tenancy/mint-accounts/mint-accounts.js';
import { AccountAdmins } from './account-admins.js';

/** What the Mint account's listeners work with. */
export interface AccountContext {
  accounts: MintAccounts;
  admins: AccountAdmins;
  store: CapabilityDeps['store'];
  config: CapabilityDeps['config'];
  home: CapabilityDeps['home'];
  logger: Logger;
}

export function accountContext(deps: CapabilityDeps): AccountContext {
  return {
    accounts: deps.mintAccounts,
    admins: new AccountAdmins(deps.workspaces, deps.settingsAdmins),
    store: deps.store,
    config: deps.config,
    home: deps.home,
    logger: deps.logger.child({ capability: 'mint-account' }),
  };
}

type Operation = 'mint_account.connect' | 'mint_account.replace' | 'mint_account.remove';

const OPERATOR_ACCOUNT =
  'In this deployment Mintlink uses the Mint account its operator set up (MINT_API_KEY): there is nothing to connect in Slack.';

/** Lets an admin through; anyone else is refused, and the attempt audited. */
export async function requireAdmin(
  ctx: AccountContext,
  userId: string,
  teamId: string,
  operation: Operation,
): Promise<void> {
  if (!ctx.accounts.distributed) throw refused(OPERATOR_ACCOUNT);
  const check = await ctx.admins.check(userId, teamId, { fresh: true });
  if (check.admin) return;
  await ctx.store.audit.record({
    actorId: userId,
    teamId,
    operation,
    inputs: {},
    outcome: 'refused',
    detail: check.problem ?? 'not the installer nor an admin of the workspace',
  });
  const installer = await ctx.admins.installerOf(teamId);
  throw refused(
    `:no_entry: Only the person who installed Mintlink${installer ? ` (<@${installer}>)` : ''} and the admins of this workspace can change its Mint account.${check.problem ? ` (${check.problem}.)` : ''}`,
  );
}

/**
 * Refreshes the Homes of a workspace's admins, and of `userId` who changed its account (cached checks: a Home
 * shows what a minute-old answer says anyway).
 */
export function refreshAdminsOf(ctx: AccountContext, teamId: string, userId?: string): void {
  ctx.home.refreshWorkspace(teamId, async (user) => user === userId || (await ctx.admins.check(user, teamId)).admin);
}
