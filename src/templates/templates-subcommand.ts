import type { AppDeps } from '../deps.js';
import type { Subcommand } from '../commands/command-registry.js';
import { escapeStrayMrkdwn } from '../slack-ui/mrkdwn.js';
import { respondSafely } from '../slack-ui/respond-safely.js';
import { loadTemplatePage } from './load-page.js';
import { TEMPLATES_USAGE, parseTemplatesArgs } from './templates-args.js';
import { noteOutcome } from '../observability/request-context.js';

/**
 * `/mintlink templates <contractId> [limit] [asc|desc]`: bad input is answered at once (no call); otherwise
 * the first page is posted for the whole channel through the response_url, which works in DMs and in
 * channels the bot has not joined.
 */
export function templatesSubcommand(deps: Pick<AppDeps, 'mintApi' | 'logger'>): Subcommand {
  return {
    name: 'templates',
    arguments: TEMPLATES_USAGE,
    description: "Browse a contract's NFT templates in this conversation, page by page (anyone here can page).",
    run: async ({ ack, args, command, respond, client, logger, request }) => {
      const parsed = parseTemplatesArgs(args, command.command);
      if (!parsed.ok) {
        noteOutcome(request, 'invalid_input');
        // The problem is mrkdwn in which the user's words are already escaped.
        await ack({ response_type: 'ephemeral', text: `:warning: ${parsed.problem}` });
        return;
      }
      await ack();
      const loaded = await loadTemplatePage({ ...deps, logger, request }, parsed.state);
      const recipient = { client, channelId: command.channel_id, userId: command.user_id, logger };
      if (loaded.ok) {
        await respondSafely(
          respond,
          { response_type: 'in_channel', ...loaded.message },
          recipient,
          ':x: Slack did not accept the list of templates here. Please run the command again.',
        );
      } else {
        // The reason quotes the service's own message: whatever of it is not escaped yet is escaped here.
        const text = `:warning: ${escapeStrayMrkdwn(loaded.reason)}`;
        await respondSafely(respond, { response_type: 'ephemeral', text }, recipient, text);
      }
    },
  };
}
