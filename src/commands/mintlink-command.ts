import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../logging/create-logger.js';
import { noteOutcome, noteRequestId, requestLogFields, requestOf } from '../observability/request-context.js';
import { type CommandRegistry, splitCommandText } from './command-registry.js';
import { helpSubcommand } from './help-subcommand.js';
import { unknownSubcommandMessage } from './usage-message.js';

/** `/mintlink` (or a dev copy such as `/mintlink-dev`): finds the subcommand and hands over. */
export const MINTLINK_COMMAND = /^\/mintlink(-[a-z0-9-]+)?$/;

/**
 * Registers `/mintlink` once every capability has registered its subcommands (help lists them all). Busy
 * answers come from the admission middleware before this runs.
 */
export function registerMintlinkCommand(app: App, registry: CommandRegistry, deps: { logger: Logger }): void {
  registry.register(helpSubcommand(registry));
  app.command(
    MINTLINK_COMMAND,
    async ({ command, ack, respond, client, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
      const request = requestOf(context);
      const { word, rest, args } = splitCommandText(command.text);
      const subcommand = word ? registry.find(word) : registry.defaultSubcommand;
      noteRequestId(request, subcommand?.name ?? 'unknown');
      if (!subcommand) {
        noteOutcome(request, 'invalid_input');
        await ack({ response_type: 'ephemeral', ...unknownSubcommandMessage(registry, command.command, word) });
        return;
      }
      const { logger } = deps;
      let acked = false;
      const trackedAck: typeof ack = async (response) => {
        acked = true;
        await ack(response);
      };
      try {
        await subcommand.run({
          command,
          args: word ? args : [],
          rest: word ? rest : '',
          ack: trackedAck,
          respond,
          client,
          logger,
          request,
        });
      } catch (error) {
        noteOutcome(request, 'failed');
        logger.error({ ...requestLogFields(request), err: error }, 'subcommand failed');
        const text = `:x: Sorry, \`${command.command} ${subcommand.name}\` failed unexpectedly. Please try again; if it keeps failing, tell the app's operator.`;
        if (!acked) await ack({ response_type: 'ephemeral', text });
        else
          await respond({ response_type: 'ephemeral', text }).catch((e: unknown) =>
            logger.warn({ err: e }, 'could not tell the user'),
          );
      }
    },
  );
}
