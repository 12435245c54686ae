import type { CapabilityStore } from '../../deps.js';
import { listModal } from '../../platform/blocks/list-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import type { ButtonRequest } from '../../platform/slack/pipeline/listen.js';
import { activityLine } from './home-view.js';
import { approvedRequestStates } from './request-states.js';

/** "See more" of the user's activity: the last 100 things they did with the app in the workspace. */
export function showAllActivity(store: CapabilityStore) {
  return async ({ body, client, teamId }: ButtonRequest): Promise<void> => {
    const entries = await store.audit.list({ actorId: body.user.id, teamId, limit: 100 });
    const requestStates = await approvedRequestStates(store, entries);
    await openModal(
      client,
      body.trigger_id,
      listModal(
        'Your activity',
        entries.map((entry) => activityLine(entry, requestStates)),
        'The last 100 things you did with the app.',
      ),
    );
  };
}
