import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { InFlight } from '../lifecycle/in-flight.js';
import type { Logger } from '../logging/create-logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { splitCommandText, type CommandRegistry } from './command-registry.js';
import { unknownSubcommandMessage } from './usage-message.js';

/** `/mintlink` (or a dev copy such as `/mintlink-dev`): finds the subcommand and hands over. */
export const MINTLINK_COMMAND = /^\/mintlink(-[a-z0-9-]+)?$/;

/** Said instead of starting more work when the app already has `maxWorkInFlight` things in progress. */
export const BUSY_TEXT = ':hourglass: The app is very busy right now, so it did not start this. Please try again in a few seconds.';

export function registerMintlinkCommand(
  app: App,
  registry: CommandRegistry,
  deps: { logger: Logger; metrics: Metrics; inFlight: InFlight; maxWorkInFlight: number },
): void {
  app.command(MINTLINK_COMMAND, (args) => deps.inFlight.track(dispatch(args)));

  async function dispatch({ command, ack, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
    const { word, rest, args } = splitCommandText(command.text);
    const subcommand = word ? registry.find(word) : registry.defaultSubcommand;
    if (!subcommand) {
      deps.metrics.commandsHandled.inc({ subcommand: 'unknown', outcome: 'rejected' });
      await ack({ response_type: 'ephemeral', ...unknownSubcommandMessage(registry, command.command, word) });
      return;
    }
    // Overload protection: work beyond the limit would only queue up (memory, slower acks for everyone).
    if (!subcommand.instant && deps.inFlight.count >= deps.maxWorkInFlight) {
      deps.metrics.commandsHandled.inc({ subcommand: subcommand.name, outcome: 'busy' });
      await ack({ response_type: 'ephemeral', text: BUSY_TEXT });
      return;
    }
    const { logger } = deps;
    let acked = false;
    const trackedAck: typeof ack = async (response) => {
      acked = true;
      await ack(response);
    };
    try {
      await subcommand.run({ command, args: word ? args : [], rest: word ? rest : '', ack: trackedAck, respond, client, logger });
      deps.metrics.commandsHandled.inc({ subcommand: subcommand.name, outcome: 'ok' });
    } catch (error) {
      deps.metrics.commandsHandled.inc({ subcommand: subcommand.name, outcome: 'error' });
      logger.error({ err: error, subcommand: subcommand.name, user: command.user_id }, 'subcommand failed');
      const text = `:x: Sorry, \`${command.command} ${subcommand.name}\` failed unexpectedly. Please try again; if it keeps failing, tell the app's operator.`;
      if (!acked) await ack({ response_type: 'ephemeral', text });
      else await respond({ response_type: 'ephemeral', text }).catch((e: unknown) => logger.warn({ err: e }, 'could not tell the user'));
    }
  }
}
