import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { type AccountContext, refreshAdminsOf, requireAdmin } from './account-context.js';

/** Home's Remove: the workspace's key deleted (audited by MintAccounts), its admins' Homes say so. */
export function removeAccount(ctx: AccountContext) {
  return async ({ body, teamId }: ButtonRequest): Promise<void> => {
    await requireAdmin(ctx, body.user.id, teamId, 'mint_account.remove');
    const removed = await ctx.accounts.remove(teamId, { by: body.user.id });
    if (removed) ctx.logger.info({ team: teamId, user: body.user.id }, 'a workspace removed its Mint account');
    refreshAdminsOf(ctx, teamId, body.user.id);
  };
}
