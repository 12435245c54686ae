import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import { splitCustomerIds } from '../../platform/mint/customer-ids.js';
import { type DeletionContext, settingsOrRefusal } from './deletion-context.js';
import { deletionRequestView } from './deletion-request-form.js';

/** `/mintlink delete [customerIds...]` (also `delete-customers`): the request form, prefilled. */
export function deletionSubcommand(ctx: DeletionContext): Subcommand {
  return {
    name: 'delete',
    aliases: ['delete-customers'],
    arguments: '[customerIds...]',
    description: 'Request deletion of customers; it runs only once approvers other than you approve it (opens a form).',
    run: async ({ ack, command, rest, client, teamId }) => {
      const settings = settingsOrRefusal(ctx, teamId); // set up in this workspace, or the person is told how
      await ctx.mintIn(teamId); // its own Mint account connected, or the person is told how
      await ack();
      await openModal(
        client,
        command.trigger_id,
        deletionRequestView({ prefill: splitCustomerIds(rest), quorum: settings.quorum }),
      );
    },
  };
}
