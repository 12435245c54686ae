import type { Context } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import { isDatabaseError } from '../../ops/lifecycle/database-error.js';
import type { Logger } from '../../ops/telemetry/create-logger.js';
import { noteOutcome, requestLogFields, requestOf } from '../../ops/telemetry/request-context.js';
import { NOT_SERVED_TEXT, type OrgWorkspaceCheck } from './org-workspace.js';
import { AlreadyHandled, RequestEnded, refused } from './request-ended.js';
import { NO_WORKSPACE_TEXT } from './request-workspace.js';
import type { Ended } from './requests.js';

/** Tells the person how their request ended; never throws (a failure to tell is logged). */
export type Tell = (text: string, blocks?: KnownBlock[]) => Promise<unknown>;

/**
 * Runs a listener and settles its request's outcome; every way a request can end is handled here. A request
 * for `teamId` (undefined: about an installation or an organization, which names itself) through an org-wide
 * installation that does not serve that workspace (org-workspace.ts), or for no workspace at all (''), ends
 * refused before the listener runs: a listener is always given the workspace it works in.
 */
export type Settle = (
  context: Context,
  teamId: string | undefined,
  tell: Tell,
  run: () => Promise<Ended>,
) => Promise<void>;

/**
 * The outcome goes to the request's record (the access log's line, `mintlink_requests_total`): what the
 * listener returned, the outcome of a `RequestEnded` it threw (whose text the person is told, by `tell`), or
 * `failed` for anything else, logged with its stack for the operator while the person reads a plain apology.
 * A second delivery of work already done (`AlreadyHandled`) ends quietly.
 */
export function settler(deps: { logger: Logger; orgWorkspaces: OrgWorkspaceCheck }): Settle {
  const { logger, orgWorkspaces } = deps;
  return async (context, teamId, tell, run) => {
    const request = requestOf(context);
    try {
      if (teamId === '') {
        logger.warn(
          requestLogFields(request),
          'request naming no workspace, and the app knows none of its own: refused',
        );
        throw refused(NO_WORKSPACE_TEXT);
      }
      if (teamId !== undefined && !(await orgWorkspaces.serves(context, teamId))) {
        logger.warn(
          { ...requestLogFields(request), team: teamId, enterprise: context.enterpriseId },
          'request through an org-wide installation from a workspace it does not serve: refused',
        );
        throw refused(NOT_SERVED_TEXT);
      }
      const outcome = await run();
      if (outcome) noteOutcome(request, outcome);
    } catch (error) {
      if (error instanceof AlreadyHandled) return;
      if (error instanceof RequestEnded) {
        noteOutcome(request, error.outcome);
        if (error.failure) logger.warn({ ...requestLogFields(request), err: error.failure.cause }, error.failure.log);
        await tell(error.text, error.blocks);
        return;
      }
      noteOutcome(request, 'failed');
      logger.error({ ...requestLogFields(request), err: error }, 'listener failed');
      await tell(unexpectedFailureText(error));
    }
  };
}

/** A way of telling that may fail (an ack, a post) made one that logs its failure instead of throwing. */
export function quietly(logger: Logger, telling: Promise<unknown>): Promise<unknown> {
  return telling.catch((error: unknown) =>
    logger.warn({ err: error }, 'could not tell the user how the request ended'),
  );
}

/** What the person is told when a listener fails unexpectedly. */
export function unexpectedFailureText(error: unknown): string {
  return isDatabaseError(error)
    ? ':warning: The app cannot reach its database right now, so nothing was changed. Please try again in a moment.'
    : ':warning: Something went wrong inside the app (the details are logged for its operator). Please try again; if it keeps failing, tell the operator.';
}
