import type { Config } from '../platform/ops/config/config.js';
import type { Store } from '../platform/store/store.js';
import {
  type EffectiveSettings,
  SETTING_DESCRIPTIONS,
  SETTING_NAMES,
  describeValue,
  effectiveSettings,
  envDefaults,
} from '../tenancy/workspaces/settings-model.js';

/**
 * The database settings are read from: one the app has used (its tables exist), or one it has not used yet
 * (`where` says what shows it, e.g. no file there), which holds no setting and must not be created by a reader.
 */
export type SettingsDatabase =
  { used: true; store: Pick<Store, 'workspaceSettingsRows'> } | { used: false; where: string };

/**
 * `npm run settings -- show`: the settings in force in each workspace and where each value comes from (the
 * environment's default, or an admin in Slack: who, when). Only ids and numbers: no secret is ever printed.
 */
export async function showSettings(config: Config, database: SettingsDatabase): Promise<string> {
  const defaults = envDefaults(config);
  const envOnly = config.settings.source === 'env';
  const head = envOnly
    ? 'SETTINGS_SOURCE=env: the environment is the only source; the settings cannot be changed in Slack.'
    : 'SETTINGS_SOURCE=slack: settings admins change these from App Home; the environment gives the defaults.';
  const rows = envOnly || !database.used ? [] : await database.store.workspaceSettingsRows.all();
  if (rows.length === 0)
    return [
      head,
      '',
      envOnly
        ? 'Settings in force:'
        : database.used
          ? 'No settings were changed in Slack: every value is the default from the environment.'
          : `The app has not used this database yet (${database.where}): no settings were changed in Slack, and every value is the default from the environment.`,
      ...lines(effectiveSettings(defaults, undefined, undefined)),
    ].join('\n');
  const blocks = rows.flatMap((row) => {
    const settings = effectiveSettings(defaults, row.teamId, row);
    return [
      '',
      `Workspace ${row.teamId}: version ${row.version}, last changed by ${row.updatedBy} at ${row.updatedAt.toISOString()}`,
      ...lines(settings),
      ...(settings.skipped.length > 0
        ? [`  (stored values that do not fit, so the defaults apply: ${settings.skipped.join(', ')})`]
        : []),
    ];
  });
  return [head, ...blocks].join('\n');
}

function lines(settings: EffectiveSettings): string[] {
  const width = Math.max(...SETTING_NAMES.map((n) => SETTING_DESCRIPTIONS[n].title.length));
  return SETTING_NAMES.map((name) => {
    const source = settings.sources[name];
    const from =
      source.from === 'slack'
        ? `set in Slack by ${source.by} at ${source.at.toISOString()}`
        : `env default: ${SETTING_DESCRIPTIONS[name].env}`;
    return `  ${SETTING_DESCRIPTIONS[name].title.padEnd(width)}  ${describeValue(name, settings.values, 'plain')}  [${from}]`;
  });
}
