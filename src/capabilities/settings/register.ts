import type { App } from '@slack/bolt';
import { SETTINGS } from './actions.js';
import type { CapabilityDeps } from '../../deps.js';
import {
  type ButtonRequest,
  type Ended,
  type FormRequest,
  type OptionsRequest,
  listen,
} from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import { maxBulkConcurrency } from '../../tenancy/workspaces/settings-model.js';
import { settingsHomeEntry } from './home-entry.js';
import { openSettings } from './open-settings.js';
import { type SettingsContext, announceChange, saveSettings } from './save-settings.js';
import { groupOption, readSettingsForm, settingsFormView, versionOf } from './settings-form.js';
import { savedView } from './saved-view.js';
import { UserGroups } from './user-groups.js';

/**
 * Settings administered in Slack: the Settings section on App Home (settings admins only), its form, the
 * user-group pickers' options, and the save (checked, compare-and-set, audited, announced).
 */
export function register(app: App, deps: CapabilityDeps): void {
  const on = listen(app, deps);
  const logger = deps.logger.child({ capability: 'settings' });
  const slack = (teamId: string | undefined) => deps.workspaces.slack(teamId);
  const ctx: SettingsContext = {
    store: deps.store,
    settings: deps.settings,
    admins: deps.settingsAdmins,
    groups: new UserGroups(slack, logger),
    slack,
    logger,
    home: deps.home,
    maxConcurrency: maxBulkConcurrency(deps.config),
  };
  deps.home.add(settingsHomeEntry(ctx));
  /** The request's workspace (single-workspace mode: the app's own, if Slack named none). */
  const workspaceOf = (request: { teamId: string }) => request.teamId || deps.settings.homeTeamId || '';

  const open = async (request: ButtonRequest) => {
    const { body, client } = request;
    const view = await openSettings(ctx, body.user.id, workspaceOf(request));
    await openModal(client, body.trigger_id, view.view);
    return view.refused ? 'refused' : undefined;
  };

  // The user-group pickers: the workspace's groups matching what the admin typed.
  const userGroups = async (request: OptionsRequest) => {
    const { ack, body } = request;
    const team = workspaceOf(request);
    // Only the settings form has these pickers: nobody else gets the workspace's groups listed.
    if (!(await ctx.admins.check(body.user.id, team)).admin) return ack({ options: [] });
    const groups = await ctx.groups.matching(body.value, team).catch(() => []);
    await ack({ options: groups.map((g) => groupOption(g.id, (id) => ctx.groups.label(id, team))) });
  };

  const save = async (request: FormRequest): Promise<Ended> => {
    const { ack, body, view, client } = request;
    const version = versionOf(view.private_metadata);
    const outcome = await saveSettings(ctx, {
      teamId: workspaceOf(request),
      userId: body.user.id,
      fromVersion: version,
      submitted: readSettingsForm(view.state.values, version ?? -1),
    });
    switch (outcome.kind) {
      case 'refused':
        throw refused(outcome.text);
      case 'invalid':
        return ack({ response_action: 'errors', errors: outcome.errors });
      case 'changed-meanwhile': {
        const by = outcome.current.updatedBy ? `<@${outcome.current.updatedBy}>` : 'Someone';
        const problem = `*The settings changed meanwhile:* ${by} saved them while you were editing, so nothing of yours was saved. This form now shows the settings as they are: make your change again.`;
        await ack({
          response_action: 'update',
          view: settingsFormView(outcome.current, {
            names: (id) => ctx.groups.label(id, outcome.current.teamId),
            maxConcurrency: ctx.maxConcurrency,
            problem,
          }),
        });
        return 'refused';
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
  };

  on.declared(SETTINGS, { buttons: { open }, options: { userGroups }, forms: { save } });
}
