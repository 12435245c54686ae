import type { WebClient } from '@slack/web-api';
import type { MintApiClient } from '../../platform/mint/mint-api-client.js';
import { runAudited } from '../../platform/mint/run-audited.js';
import { notFoundCount, recordHighlights, type MintRecord } from '../../platform/mint/responses.js';
import type { DeletionRequest } from '../../platform/store/deletion-requests.js';
import type { DeletionContext } from './deletion-context.js';
import { publishAndNotify, publishRequest } from './publish-request.js';

/** What a run works with in the request's workspace: its Slack client and its own Mint account. */
export interface RunWith {
  slack: WebClient;
  mint: MintApiClient;
}

export type RunResult = { ran: true; request: DeletionRequest } | { ran: false; request: DeletionRequest | undefined };

/**
 * Sends an approved (or failed, or interrupted) request's deletion to the Mint service exactly once per
 * claim: the claim is a compare-and-set, so of concurrent callers only one sends PATCH /v1/customer/delete.
 * The outcome is recorded (done/failed), shown in the approval message, and sent to the requester. `asked`
 * is the request as the caller found it in its workspace: the run stays in that workspace, with its Mint
 * account (`using.mint`) and its Slack (`using.slack`).
 */
export async function runDeletion(
  ctx: DeletionContext,
  using: RunWith,
  asked: Pick<DeletionRequest, 'id' | 'teamId'>,
  from: ReadonlyArray<'approved' | 'failed' | 'attention'>,
  by: string,
): Promise<RunResult> {
  const requestId = asked.id;
  const requests = ctx.store.deletionRequests.forTeam(asked.teamId);
  const claim = await requests.claimRun(requestId, from, by);
  if (!claim.won) return { ran: false, request: claim.request };
  const request = claim.request;
  const logger = ctx.logger.child({ requestId, attempt: request.attempts });
  await publishRequest({ ...ctx, logger }, using.slack, request);

  const outcome = await runAudited(
    { store: ctx.store, logger },
    { userId: by, teamId: request.teamId },
    {
      operation: 'customers.delete.run',
      inputs: { requestId, attempt: request.attempts, customerIds: request.customerIds },
      thing: 'the customers',
      done: 'deleted',
      detail: (answer) => describeAnswer(answer),
    },
    () => using.mint.deleteCustomers(request.customerIds),
  );
  const detail = outcome.ok ? describeAnswer(outcome.result) : outcome.reason;
  const notFound = outcome.ok ? notFoundCount(outcome.result, request.customerIds.length) : undefined;
  let final: DeletionRequest;
  try {
    const finished = await requests.finishRun(requestId, outcome.ok ? 'done' : 'failed', detail, notFound);
    final = finished.request ?? request;
  } catch (error) {
    // The deletion was sent but its outcome cannot be stored: say so now; the request stays "running" in
    // the database, and the sweeper marks it for attention once the database is back.
    logger.error({ err: error, succeeded: outcome.ok }, 'could not record the outcome of a deletion');
    const what = outcome.ok ? `the Mint service said it deleted them (${detail})` : `it failed: ${detail}`;
    final = {
      ...request,
      status: 'attention',
      outcomeDetail: `the app could not record the outcome (database unavailable); ${what}`,
    };
  }
  await publishAndNotify({ ...ctx, logger }, using.slack, final);
  return { ran: true, request: final };
}

/** The service's answer in a few words (its fields are not specified): lists by size, values as they are. */
function describeAnswer(answer: MintRecord): string {
  const parts = recordHighlights(answer).map(([key, value]) => `${key}: ${value}`);
  return parts.length > 0 ? parts.join(', ') : 'OK';
}
