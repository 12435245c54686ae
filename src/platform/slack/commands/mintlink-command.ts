import type { Logger } from '../../ops/telemetry/create-logger.js';
import { noteRequestId, requestOf } from '../../ops/telemetry/request-context.js';
import type { CommandRequest, Listen } from '../pipeline/listen.js';
import { declare } from '../pipeline/declarations.js';
import { invalidInput } from '../pipeline/request-ended.js';
import { type CommandRegistry, splitCommandText } from './command-registry.js';
import { helpSubcommand } from './help-subcommand.js';
import { unknownSubcommandMessage } from './usage-message.js';

/** `/mintlink` (or a dev copy such as `/mintlink-dev`): finds the subcommand and hands over. */
export const COMMANDS = declare('commands', {
  commands: { mintlink: { name: '/mintlink', matches: /^\/mintlink(-[a-z0-9-]+)?$/ } },
});

/**
 * Registers `/mintlink` once every capability has registered its subcommands (help lists them all). Busy
 * answers come from the admission middleware before this runs; failures are told by the pipeline.
 */
export function registerMintlinkCommand(on: Listen, registry: CommandRegistry, deps: { logger: Logger }): void {
  registry.register(helpSubcommand(registry));
  const mintlink = async ({ command, ack, respond, client, context, teamId }: CommandRequest) => {
    const { word, rest, args } = splitCommandText(command.text);
    // eslint-disable-next-line unicorn/no-array-callback-reference -- the registry's lookup by name, not Array#find
    const subcommand = word ? registry.find(word) : registry.defaultSubcommand;
    noteRequestId(requestOf(context), subcommand?.name ?? 'unknown');
    if (!subcommand) {
      const { text, blocks } = unknownSubcommandMessage(registry, command.command, word);
      throw invalidInput(text, blocks);
    }
    return subcommand.run({
      command,
      teamId,
      args: word ? args : [],
      rest: word ? rest : '',
      ack,
      respond,
      client,
      logger: deps.logger,
    });
  };
  on.declared(COMMANDS, { commands: { mintlink } });
}
