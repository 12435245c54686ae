import type { ModalView } from '@slack/types';
import { noticeModal } from '../../platform/blocks/notice-modal.js';
import { openModal } from '../../platform/blocks/open-modal.js';
import type { ButtonRequest, Ended } from '../../platform/slack/pipeline/listen.js';
import { notAdminText } from './save-settings.js';
import type { SettingsContext } from './settings-context.js';
import { readOnlySettingsView, settingsFormView } from './settings-form.js';

/**
 * What "Change settings" opens for `userId`: the form filled with the settings in force (read-only with
 * SETTINGS_SOURCE=env), or, for anyone who is not a settings admin, why not (audited: the button is shown to
 * admins only, so a click from anyone else was forged or is stale).
 */
export async function openSettings(
  ctx: SettingsContext,
  userId: string,
  teamId: string,
): Promise<{ view: ModalView; refused: boolean }> {
  const admin = await ctx.admins.check(userId, teamId);
  if (!admin.admin) {
    ctx.logger.warn({ user: userId, team: teamId }, 'settings opened by someone who is not a settings admin; refused');
    await ctx.store.audit
      .record({
        actorId: userId,
        teamId,
        operation: 'settings.open',
        inputs: {},
        outcome: 'refused',
        detail: admin.problem ?? 'not a settings admin',
      })
      .catch((error: unknown) => ctx.logger.error({ err: error }, 'could not audit a refused settings open'));
    return {
      view: noticeModal('Mintlink settings', notAdminText(admin.problem).replace('change', 'see or change')),
      refused: true,
    };
  }
  const settings = ctx.settings.current(teamId);
  if (ctx.settings.envOnly) return { view: readOnlySettingsView(settings), refused: false };
  return {
    view: settingsFormView(settings, {
      names: (id) => ctx.groups.label(id, teamId),
      maxConcurrency: ctx.maxConcurrency,
    }),
    refused: false,
  };
}

/** Home's "Change settings" ("View settings" when they come from the environment): the form, or why not. */
export function openSettingsForm(ctx: SettingsContext) {
  return async (request: ButtonRequest): Promise<Ended> => {
    const { body, client, teamId } = request;
    const view = await openSettings(ctx, body.user.id, teamId);
    await openModal(client, body.trigger_id, view.view);
    return view.refused ? 'refused' : undefined;
  };
}
