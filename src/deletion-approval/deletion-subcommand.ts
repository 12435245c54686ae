import type { Subcommand } from '../commands/command-registry.js';
import { openModal } from '../slack-ui/open-modal.js';
import { splitCustomerIds } from '../mint-api/customer-ids.js';
import type { DeletionContext } from './deletion-context.js';
import { deletionRequestView } from './deletion-request-form.js';
import { notConfiguredText } from './deletion-settings.js';
import { refused } from '../request-pipeline/request-ended.js';

/** `/mintlink delete [customerIds...]` (also `delete-customers`): the request form, prefilled. */
export function deletionSubcommand(ctx: DeletionContext): Subcommand {
  return {
    name: 'delete',
    aliases: ['delete-customers'],
    arguments: '[customerIds...]',
    description: 'Ask to delete customers; it runs only after another team member approves (opens a form).',
    run: async ({ ack, command, rest, client }) => {
      if (!ctx.settings) throw refused(notConfiguredText(ctx.missingSettings, ctx.settingsInSlack));
      await ack();
      await openModal(client, command.trigger_id, deletionRequestView({ prefill: splitCustomerIds(rest) }));
    },
  };
}
