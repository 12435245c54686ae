import { formSubcommand } from '../../platform/slack/commands/form-subcommand.js';
import { bulkFormView } from './bulk-form.js';

/** `/mintlink bulk [links|wallets]`: the "Bulk create" form, with what to create chosen. */
export const bulkSubcommand = formSubcommand({
  name: 'bulk',
  arguments: '[links|wallets]',
  description: 'Create many mint links or wallets from a CSV (a file or pasted text), with a preview first.',
  form: (what) => bulkFormView({ kind: /^wallets?$/i.test(what ?? '') ? 'wallets' : 'links' }),
});
