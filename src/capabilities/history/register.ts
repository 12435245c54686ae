import type { App } from '@slack/bolt';
import type { CapabilityDeps } from '../../deps.js';
import { type ButtonRequest, listen } from '../../platform/slack/pipeline/listen.js';
import { HISTORY } from './actions.js';
import { DETAILS_CALLBACK_ID, showDetailsAgain } from './history-details.js';
import { historyBackfillJob, historyNamesJob, historyRetentionJob } from './history-jobs.js';
import { type HistoryDeps, handleDetails, handleSearch, handleTurn, openHistory } from './history-pages.js';
import { historySubcommand } from './history-subcommand.js';
import { wordsOnly } from './page-state.js';
import { ReaderZones } from './reader-zone.js';

/**
 * History: what was made through the app in a workspace (links, wallets, deletion requests, bulk jobs), found
 * in Slack. `/mintlink history [words]` and Home's History button open it; Search, Previous / Next, Keep
 * searching and Details work in the modal. Rows are written by the store with the audit entry that made each thing; this capability
 * reads them, copies the older audit log in once, and prunes with the audit retention.
 */
export function register(app: App, deps: CapabilityDeps): void {
  const logger = deps.logger.child({ capability: 'history' });
  const ctx: HistoryDeps = { ...deps, logger, zones: new ReaderZones(logger) };
  deps.commands.register(historySubcommand(ctx));
  deps.home.add({ order: 35, flow: HISTORY.buttons.openFromHome });
  // A pending deletion's Approve / Reject on Details come from the deletions capability; Details is shown again after.
  deps.decisions.showAgainWith(DETAILS_CALLBACK_ID, showDetailsAgain(ctx));
  const jobs = { store: deps.store, logger, work: deps.work };
  deps.background.schedule(historyBackfillJob(jobs));
  deps.background.schedule(historyRetentionJob(jobs, deps.config.audit.retentionDays));
  deps.background.schedule(historyNamesJob({ ...jobs, workspaces: deps.workspaces }));

  const openFromHome = ({ body, client, teamId }: ButtonRequest) =>
    openHistory(ctx, { client, triggerId: body.trigger_id, teamId, userId: body.user.id, logger }, wordsOnly(''));

  listen(app, deps).declared(HISTORY, {
    buttons: {
      openFromHome,
      previous: handleTurn(ctx, 'previous'),
      next: handleTurn(ctx, 'next'),
      keepSearching: handleTurn(ctx, 'continue'),
      details: handleDetails(ctx),
    },
    forms: { search: handleSearch(ctx) },
  });
}
