import type { CommandRegistry, Subcommand } from './command-registry.js';
import { usageMessage } from './usage-message.js';

export function helpSubcommand(registry: CommandRegistry): Subcommand {
  return {
    name: 'help',
    description: 'Show this list of commands.',
    run: async ({ ack, command }) => {
      await ack({ response_type: 'ephemeral', ...usageMessage(registry, command.command) });
    },
  };
}
