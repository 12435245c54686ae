import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import { type HistoryDeps, openHistory } from './history-pages.js';
import { wordsOnly } from './page-state.js';

/** `/mintlink history [words]`: the History modal, already searching for the words when given. */
export function historySubcommand(deps: HistoryDeps): Subcommand {
  return {
    name: 'history',
    arguments: '[words]',
    description:
      'Find a link, wallet, deletion request or bulk job made through the app, e.g. `history nft-42` or `history cus_1002`.',
    run: async ({ ack, command, rest, client, teamId, logger }) => {
      await ack();
      await openHistory(
        deps,
        { client, triggerId: command.trigger_id, teamId, userId: command.user_id, logger },
        wordsOnly(rest.trim().slice(0, 500)),
      );
    },
  };
}
