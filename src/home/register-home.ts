import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { Approvers } from '../customers/approvers.js';
import type { Logger } from '../logging/create-logger.js';
import { openForm, openModal } from '../slack-ui/open-modal.js';
import type { Routes } from '../slack-ui/routes.js';
import type { Store } from '../store/store.js';
import type { HomePublisher } from './home-publisher.js';
import { listModal } from './home-lists.js';
import { HOME_ACTIONS, activityLine, requestLine } from './home-view.js';

export interface HomeDeps {
  store: Store;
  approvers: Approvers;
  logger: Logger;
  publisher: HomePublisher;
  /** The forms Home's buttons open: the very ones the commands and shortcuts open. */
  forms: { link: () => ModalView; wallet: () => ModalView; deletion: () => ModalView; templates: () => ModalView };
  approvalChannel: string | undefined;
}

/** App Home: published when the user opens it; its buttons open the same forms as the commands. */
export function registerHome(app: App, routes: Routes, deps: HomeDeps): void {
  app.event('app_home_opened', async ({ event, body }) => {
    if (event.tab !== 'home') return;
    const teamId = (body as { team_id?: string }).team_id;
    const onScreen = (event.view as { hash?: string } | undefined)?.hash; // the version the user sees now
    await deps.publisher.publish(event.user, teamId, onScreen).catch((error: unknown) => deps.logger.warn({ err: error, user: event.user }, 'could not publish the Home tab'));
  });

  routes
    .action(HOME_ACTIONS.createLink, openForm(deps.forms.link, deps.logger))
    .action(HOME_ACTIONS.createWallet, openForm(deps.forms.wallet, deps.logger))
    .action(HOME_ACTIONS.requestDeletion, openForm(deps.forms.deletion, deps.logger))
    .action(HOME_ACTIONS.browseTemplates, openForm(deps.forms.templates, deps.logger))
    .action(HOME_ACTIONS.allApprovals, list(deps, async (user) => {
      if (!(await deps.approvers.check(user)).approver) return listModal('Waiting for approval', [], 'Only approvers see these.');
      const pending = await deps.store.deletionRequests.list({ statuses: ['pending'], notRequesterId: user, limit: 1000 });
      const where = deps.approvalChannel ? ` on their messages in <#${deps.approvalChannel}>,` : '';
      return listModal('Waiting for approval', pending.map((r) => requestLine(r, true)), `Decide them${where} or on Home as they come to the top.`);
    }))
    .action(HOME_ACTIONS.allOwnRequests, list(deps, async (user) => {
      const pending = await deps.store.deletionRequests.list({ statuses: ['pending'], requesterId: user, limit: 1000 });
      return listModal('Your requests', pending.map((r) => requestLine(r, false)), 'Cancel them from the message the app sent you, or on Home.');
    }))
    .action(HOME_ACTIONS.allActivity, list(deps, async (user) => {
      const entries = await deps.store.audit.list({ actorId: user, limit: 100 });
      return listModal('Your activity', entries.map(activityLine), 'The last 100 things you did with the app.');
    }));
}

/** A "See all" button: the list is read, then shown in a modal (the trigger allows 3 s; reads take ms). */
function list(deps: HomeDeps, build: (userId: string) => Promise<ModalView>) {
  return async ({ ack, body, client }: { ack: () => Promise<void>; body: { trigger_id: string; user: { id: string } }; client: Parameters<typeof openModal>[0] }) => {
    await ack();
    await openModal(client, body.trigger_id, await build(body.user.id), { logger: deps.logger });
  };
}
