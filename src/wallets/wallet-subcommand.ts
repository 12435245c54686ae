import { formSubcommand } from '../commands/form-subcommand.js';
import { walletFormView } from './wallet-form.js';

/** `/mintlink wallet [customerId]`: the form, prefilled with the customer ID. */
export const walletSubcommand = formSubcommand({
  name: 'wallet',
  arguments: '[customerId]',
  description: 'Create a wallet for a customer, or for a new user (opens a form; the service picks the chain).',
  form: (customerId) => walletFormView({ customerId }),
});
