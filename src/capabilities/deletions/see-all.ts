import { openModal } from '../../platform/blocks/open-modal.js';
import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import type { DeletionContext } from './deletion-context.js';
import type { allApprovalsView } from './home-entry.js';

/**
 * Home's "See all" of one of the deletion lists (the approvals waiting for the user, their own requests): the
 * list is read, then shown (the trigger allows 3 s; reads take milliseconds).
 */
export function seeAll(ctx: DeletionContext, list: typeof allApprovalsView) {
  return async ({ body, client, teamId }: ButtonRequest): Promise<void> =>
    openModal(client, body.trigger_id, await list(ctx, teamId, body.user.id));
}
