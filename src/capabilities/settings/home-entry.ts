import type { KnownBlock } from '@slack/types';
import { SETTINGS } from './actions.js';
import { buttonOf } from '../../platform/slack/pipeline/declarations.js';
import type { HomeEntry } from '../../deps.js';
import { actionsRow, context, divider, section } from '../../platform/blocks/blocks.js';
import { slackDate } from '../../platform/blocks/slack-date.js';
import { type SettingName, SETTING_DESCRIPTIONS, describeValue } from '../../tenancy/workspaces/settings-model.js';
import { capitalize } from './settings-form.js';
import type { SettingsContext } from './settings-context.js';

const SHOWN: readonly SettingName[] = ['approvers', 'approvalChannelId', 'quorum', 'requestTtlHours', 'auditViewers'];

/** Settings on App Home: a summary and the button to the form, for settings admins only. */
export function settingsHomeEntry(ctx: SettingsContext): HomeEntry {
  return {
    order: 60,
    blocks: async (userId, teamId) => {
      const settings = ctx.settings.current(teamId);
      if (!(await ctx.admins.check(userId, settings.teamId)).admin) return [];
      const lines = SHOWN.map(
        (name) => `${capitalize(SETTING_DESCRIPTIONS[name].title)}: ${describeValue(name, settings.values, 'slack')}`,
      );
      const last =
        settings.updatedBy && settings.updatedAt
          ? `Last changed by <@${settings.updatedBy}> ${slackDate(settings.updatedAt)}.`
          : "Every value is the default from the app's environment.";
      const blocks: KnownBlock[] = [
        section(`*Settings* (you are a settings admin)\n${lines.join('\n')}`),
        context(
          ctx.settings.envOnly
            ? 'Managed by the operator in the environment (SETTINGS_SOURCE=env): read-only here.'
            : last,
        ),
        actionsRow(
          'settings',
          buttonOf(SETTINGS.buttons.open, {
            label: ctx.settings.envOnly ? 'View settings' : 'Change settings',
          }),
        ),
        divider(),
      ];
      return blocks;
    },
  };
}
