import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { updateModal } from '../../platform/blocks/update-modal.js';
import type { Ended, FormRequest } from '../../platform/slack/pipeline/listen.js';
import { refused } from '../../platform/slack/pipeline/request-ended.js';
import { announceChange, saveSettings } from './save-settings.js';
import type { SettingsContext } from './settings-context.js';
import { savedView } from './saved-view.js';
import { readSettingsForm, settingsFormView, versionOf } from './settings-form.js';

/**
 * The settings form's Save: checked, saved only over the version the form showed, then announced; what the
 * admin sees for each outcome.
 */
export function handleSaveSubmission(ctx: SettingsContext) {
  return async (request: FormRequest): Promise<Ended> => {
    const { ack, body, view, client } = request;
    const version = versionOf(view.private_metadata);
    const outcome = await saveSettings(ctx, {
      teamId: request.teamId,
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
        if (failed.length > 0) await updateModal(client, view.id, savedView(outcome, failed), ctx.logger);
        return;
      }
    }
  };
}
