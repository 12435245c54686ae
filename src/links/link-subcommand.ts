import { formSubcommand } from '../commands/form-subcommand.js';
import { linkFormView } from './link-form.js';

/** `/mintlink link [nftId]` (and `/mintlink` alone): the form, prefilled with the NFT ID. */
export const linkSubcommand = formSubcommand({
  name: 'link',
  arguments: '[nftId]',
  description: 'Create a mint link for a user or a group of customers (opens a form).',
  form: (nftId) => linkFormView({ nftId }),
});
