import { escapeMrkdwn } from '../../platform/blocks/mrkdwn.js';
import type { Subcommand } from '../../platform/slack/commands/command-registry.js';
import { invalidInput } from '../../platform/slack/pipeline/request-ended.js';
import { searchWords, searchWordsProblem } from '../../platform/store/history/entry.js';
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
      const words = rest.trim().slice(0, 500);
      const problem = searchWordsProblem(searchWords(words));
      if (problem)
        throw invalidInput(
          `:warning: ${escapeMrkdwn(problem)}\nFor example \`/mintlink history nft-42\` or \`/mintlink history cus_1002\`.`,
        );
      await ack();
      await openHistory(
        deps,
        { client, triggerId: command.trigger_id, teamId, userId: command.user_id, logger },
        wordsOnly(words),
      );
    },
  };
}
