import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import { formSubcommand } from '../../platform/slack/commands/form-subcommand.js';
import type { MintAccounts } from '../../tenancy/mint-accounts/mint-accounts.js';
import { needingMintAccount } from '../../tenancy/mint-accounts/require-account.js';
import { walletFormView } from './wallet-form.js';

/**
 * `/mintlink wallet [customerId]`: the form, prefilled with the customer ID; in a workspace without a Mint
 * account, how to connect one instead.
 */
export function walletSubcommand(accounts: Pick<MintAccounts, 'forTeam'>): Subcommand {
  return needingMintAccount(
    formSubcommand({
      name: 'wallet',
      arguments: '[customerId]',
      description: 'Create a wallet for a customer, or for a new user (opens a form; the service picks the chain).',
      form: (customerId) => walletFormView({ customerId }),
    }),
    accounts,
  );
}
