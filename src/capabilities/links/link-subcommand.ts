import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import { formSubcommand } from '../../platform/slack/commands/form-subcommand.js';
import type { MintAccounts } from '../../tenancy/mint-accounts/mint-accounts.js';
import { needingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { linkFormView } from './link-form.js';

/**
 * `/mintlink link [nftId]` (and `/mintlink` alone): the form, prefilled with the NFT ID; in a workspace
 * without a Mint account, how to connect one instead.
 */
export function linkSubcommand(accounts: Pick<MintAccounts, 'forTeam'>): Subcommand {
  return needingMintAccount(
    formSubcommand({
      name: 'link',
      arguments: '[nftId]',
      description: 'Create a mint link for a user or a group of customers (opens a form).',
      form: (nftId) => linkFormView({ nftId }),
    }),
    accounts,
  );
}
