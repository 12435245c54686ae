import type { CommandRegistry, Subcommand } from './command-registry.js';
import { usageMessage } from './usage-message.js';

export function helpSubcommand(registry: CommandRegistry): Subcommand {
  // Built once per command name (/mintlink, or a dev copy's): the registry is complete by the first request.
  // Bounded: Slack sends only the commands the app's manifest declares.
  const usage = new Map<string, ReturnType<typeof usageMessage>>();
  return {
    name: 'help',
    description: 'Show this list of commands.',
    run: async ({ ack, command }) => {
      let message = usage.get(command.command);
      if (!message) usage.set(command.command, (message = usageMessage(registry, command.command)));
      await ack({ response_type: 'ephemeral', ...message });
    },
  };
}
