import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { CapabilityDeps } from '../deps.js';
import { guardAction, guardView } from '../slack-ui/guard-listener.js';
import { noticeModal } from '../slack-ui/notice-modal.js';
import { openModal } from '../slack-ui/open-modal.js';
import { updateModal } from '../slack-ui/update-modal.js';
import { noteOutcome, requestOf } from '../observability/request-context.js';
import { maxBulkConcurrency } from '../workspace-settings/settings-model.js';
import { OPEN_SETTINGS_ACTION, settingsHomeEntry } from './home-entry.js';
import { openSettings } from './open-settings.js';
import { type SettingsContext, announceChange, saveSettings } from './save-settings.js';
import { SettingsAdmins } from './settings-admins.js';
import {
  SETTINGS_FORM_CALLBACK,
  USER_GROUPS_ACTION,
  groupOption,
  readSettingsForm,
  settingsFormView,
  versionOf,
} from './settings-form.js';
import { savedView } from './saved-view.js';
import { UserGroups } from './user-groups.js';

type Button = BlockAction<ButtonAction>;

/**
 * Settings administered in Slack: the Settings section on App Home (settings admins only), its form, the
 * user-group pickers' options, and the save (checked, compare-and-set, audited, announced).
 */
export function register(app: App, deps: CapabilityDeps): void {
  const logger = deps.logger.child({ capability: 'settings' });
  const ctx: SettingsContext = {
    store: deps.store,
    settings: deps.settings,
    admins: new SettingsAdmins(deps.settings, app.client, logger),
    groups: new UserGroups(app.client, logger),
    client: app.client,
    logger,
    home: deps.home,
    maxConcurrency: maxBulkConcurrency(deps.config),
  };
  deps.home.add(settingsHomeEntry(ctx));
  const teamOf = (body: { team: { id: string } | null; user: { team_id?: string } }) =>
    body.team?.id ?? body.user.team_id ?? deps.settings.homeTeamId ?? '';

  app.action<Button>(
    OPEN_SETTINGS_ACTION,
    guardAction(logger, async ({ ack, body, client, context }) => {
      await ack();
      const request = requestOf(context);
      const view = await openSettings(ctx, body.user.id, teamOf(body));
      if (view.refused) noteOutcome(request, 'refused');
      await openModal(client, body.trigger_id, view.view, { logger, request });
    }),
  );

  // The user-group pickers: the workspace's groups matching what the admin typed.
  app.options<'block_suggestion'>(USER_GROUPS_ACTION, async ({ ack, body }) => {
    const groups = await ctx.groups.matching(body.value).catch(() => []);
    await ack({ options: groups.map((g) => groupOption(g.id, (id) => ctx.groups.label(id))) });
  });

  app.view<ViewSubmitAction>(
    SETTINGS_FORM_CALLBACK,
    guardView(logger, 'Mintlink settings', async ({ ack, body, view, client, context }) => {
      const request = requestOf(context);
      const version = versionOf(view.private_metadata);
      const outcome = await saveSettings(ctx, {
        teamId: teamOf(body),
        userId: body.user.id,
        fromVersion: version,
        submitted: readSettingsForm(view.state.values, version ?? -1),
      });
      switch (outcome.kind) {
        case 'refused':
          noteOutcome(request, 'refused');
          return ack({ response_action: 'update', view: noticeModal('Mintlink settings', outcome.text) });
        case 'invalid':
          noteOutcome(request, 'invalid_input');
          return ack({ response_action: 'errors', errors: outcome.errors });
        case 'changed-meanwhile': {
          noteOutcome(request, 'refused');
          const by = outcome.current.updatedBy ? `<@${outcome.current.updatedBy}>` : 'Someone';
          const problem = `*The settings changed meanwhile:* ${by} saved them while you were editing, so nothing of yours was saved. This form now shows the settings as they are: make your change again.`;
          return ack({
            response_action: 'update',
            view: settingsFormView(outcome.current, {
              names: (id) => ctx.groups.label(id),
              maxConcurrency: ctx.maxConcurrency,
              problem,
            }),
          });
        }
        case 'unchanged':
          return ack({
            response_action: 'update',
            view: noticeModal('Mintlink settings', 'Nothing was changed: the settings are as you left them.'),
          });
        case 'saved': {
          await ack({ response_action: 'update', view: savedView(outcome, []) });
          const failed = await announceChange(ctx, body.user.id, outcome);
          if (failed.length > 0) await updateModal(client, view.id, savedView(outcome, failed), logger);
          return;
        }
      }
    }),
  );
}
