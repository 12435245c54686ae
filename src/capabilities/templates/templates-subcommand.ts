import type { CapabilityDeps } from '../../deps.js';
import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import { escapeStrayMrkdwn } from '../../platform/blocks/mrkdwn.js';
import { respondSafely } from '../../platform/blocks/respond-safely.js';
import { loadTemplatePage } from './load-page.js';
import { TEMPLATES_USAGE, parseTemplatesArgs } from './templates-args.js';
import { RequestEnded, invalidInput } from '../../platform/slack/pipeline/request-ended.js';

/**
 * `/mintlink templates <contractId> [limit] [asc|desc]`: bad input is answered at once (no call); otherwise
 * the first page is posted for the whole channel through the response_url, which works in DMs and in
 * channels the bot has not joined.
 */
export function templatesSubcommand(deps: Pick<CapabilityDeps, 'mintAccounts' | 'logger'>): Subcommand {
  return {
    name: 'templates',
    arguments: TEMPLATES_USAGE,
    description: "Browse a contract's NFT templates in this conversation, page by page (anyone here can page).",
    run: async ({ ack, args, command, respond, client, logger, teamId }) => {
      const parsed = parseTemplatesArgs(args, command.command);
      // The problem is mrkdwn in which the user's words are already escaped.
      if (!parsed.ok) throw invalidInput(`:warning: ${parsed.problem}`);
      // Before the ack: without a Mint account, the command's answer says how to connect one.
      const mint = await deps.mintAccounts.forTeam(teamId);
      await ack();
      const loaded = await loadTemplatePage({ mint, logger }, parsed.state);
      // The reason quotes the service's own message: whatever of it is not escaped yet is escaped here.
      if (!loaded.ok) throw new RequestEnded(loaded.outcome, `:warning: ${escapeStrayMrkdwn(loaded.reason)}`);
      await respondSafely(
        respond,
        { response_type: 'in_channel', ...loaded.message },
        { client, channelId: command.channel_id, userId: command.user_id, logger },
        ':x: Slack did not accept the list of templates here. Please run the command again.',
      );
    },
  };
}
