import type { SettingsContext } from './settings-context.js';
import { context, message, section } from '../../platform/blocks/blocks.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import type { StoredWorkspaceSettings } from '../../platform/store/workspace-settings-rows.js';
import {
  type EffectiveSettings,
  type SettingName,
  type WorkspaceSettings,
  SETTING_DESCRIPTIONS,
  SETTING_NAMES,
  describeValue,
  sameValue,
  storedValue,
} from '../../tenancy/workspaces/settings-model.js';
import { type FieldErrors, parseSubmitted, slackProblems } from './check-settings.js';
import { type Field, type SubmittedSettings, blockId } from './settings-form.js';

/** One setting changed: its old and new values, in words (`slack`: with mentions; `plain`: bare ids). */
export interface SettingChange {
  name: SettingName;
  from: { slack: string; plain: string };
  to: { slack: string; plain: string };
}

export type SaveOutcome =
  /** Not a settings admin, or SETTINGS_SOURCE=env: refused and audited, nothing stored. */
  | { kind: 'refused'; text: string }
  /** Values refused, by the form's block ids; nothing stored. */
  | { kind: 'invalid'; errors: Record<string, string> }
  /** Saved by someone else since the form was opened: nothing stored; these are the settings now. */
  | { kind: 'changed-meanwhile'; current: EffectiveSettings }
  | { kind: 'unchanged'; current: EffectiveSettings }
  | { kind: 'saved'; before: EffectiveSettings; after: EffectiveSettings; changes: SettingChange[] };

export interface SaveRequest {
  teamId: string;
  userId: string;
  /** The version the form was made from (undefined: the form was not the app's). */
  fromVersion: number | undefined;
  submitted: SubmittedSettings;
}

/**
 * An admin's save, from the form to the database: refused (and audited) unless they are a settings admin
 * and settings may be changed in Slack; checked (values, then Slack: channel, user groups, quorum, last
 * admin); then written by compare-and-set on the version the form was made from, with its audit entry (who,
 * old and new values) in the same transaction. Nothing is written unless all of it holds.
 */
export async function saveSettings(ctx: SettingsContext, request: SaveRequest): Promise<SaveOutcome> {
  const { teamId, userId } = request;
  if (ctx.settings.envOnly) return refuse(ctx, request, 'env-only', ENV_ONLY_TEXT);
  // The admins as stored now (not as this replica last polled them: someone removed a second ago is out), and
  // Slack's checks of the new values, asked at once: together they stay well inside the 3 s before the ack.
  const before = await ctx.settings.fresh(teamId);
  const parsed = parseSubmitted(request.submitted, ctx.maxConcurrency);
  const [admin, problems] = await Promise.all([
    ctx.admins.checkAmong(before.values.settingsAdmins, userId, { fresh: true, teamId }),
    // Asked of the values that read well even when others do not: every error the form can know, in one round.
    request.fromVersion === before.version
      ? slackProblems(
          { client: await ctx.slack(teamId), admins: ctx.admins, teamId },
          parsed.ok ? parsed.values : parsed.checkable,
          userId,
        )
      : undefined,
  ]);
  if (!admin.admin) return refuse(ctx, request, 'not a settings admin', notAdminText(admin.problem));
  if (request.fromVersion === undefined)
    return refuse(
      ctx,
      request,
      'form not made by the app',
      ":no_entry: This form was not made by the app. Nothing was changed; open Settings on the app's Home again.",
    );

  const version = request.fromVersion;
  // A value's own error comes before what Slack said of the others' combination (e.g. the quorum).
  if (!parsed.ok) return invalid(ctx, request, { ...problems, ...parsed.errors }, version);
  if (before.version !== version) return { kind: 'changed-meanwhile', current: before };
  const changes = changesBetween(before.values, parsed.values);
  if (changes.length === 0) return { kind: 'unchanged', current: before };
  if (problems && Object.keys(problems).length > 0) return invalid(ctx, request, problems, version);

  const at = new Date().toISOString();
  const changed = Object.fromEntries(
    changes.map(({ name }) => [name, { value: storedValue(name, parsed.values[name]), by: userId, at }]),
  );
  const saved = await ctx.settings.save(teamId, version, changed, userId, (written) => ({
    actorId: userId,
    teamId,
    operation: 'settings.change',
    inputs: {
      version: written.version,
      changed: changes.map((c) => c.name),
      ...Object.fromEntries(changes.map((c) => [c.name, { from: c.from.plain, to: c.to.plain }])),
    },
    outcome: 'succeeded',
    detail: changes.map((c) => `${SETTING_DESCRIPTIONS[c.name].title}: ${c.from.plain} -> ${c.to.plain}`).join('; '),
  }));
  if (!saved) return { kind: 'changed-meanwhile', current: await ctx.settings.fresh(teamId) };
  ctx.logger.info(
    { user: userId, team: teamId, version: saved.version, changed: changes.map((c) => c.name) },
    'settings changed',
  );
  return { kind: 'saved', before, after: ctx.settings.current(teamId), changes };
}

export const ENV_ONLY_TEXT =
  ":lock: These settings are managed by the app's operator in its environment (SETTINGS_SOURCE=env): they cannot be changed in Slack. Nothing was changed.";

export function notAdminText(problem?: string): string {
  return problem
    ? `:warning: Your right to change the settings could not be checked (${problem}). Nothing was changed; try again in a moment.`
    : ":no_entry: Only settings admins can change Mintlink's settings. Nothing was changed.";
}

/** The settings that differ, in the order of the form. */
export function changesBetween(before: WorkspaceSettings, after: WorkspaceSettings): SettingChange[] {
  return SETTING_NAMES.filter((name) => !sameValue(before[name], after[name])).map((name) => ({
    name,
    from: { slack: describeValue(name, before, 'slack'), plain: describeValue(name, before, 'plain') },
    to: { slack: describeValue(name, after, 'slack'), plain: describeValue(name, after, 'plain') },
  }));
}

/** A refusal is audited (who tried, and why it was refused); the audit entry failing does not change the answer. */
async function refuse(ctx: SettingsContext, request: SaveRequest, why: string, text: string): Promise<SaveOutcome> {
  ctx.logger.warn({ user: request.userId, team: request.teamId, why }, 'settings change refused');
  await ctx.store.audit
    .record({
      actorId: request.userId,
      teamId: request.teamId,
      operation: 'settings.change',
      inputs: { fromVersion: request.fromVersion ?? null },
      outcome: 'refused',
      detail: why,
    })
    .catch((error: unknown) => ctx.logger.error({ err: error }, 'could not audit a refused settings change'));
  return { kind: 'refused', text };
}

function invalid(ctx: SettingsContext, request: SaveRequest, errors: FieldErrors, version: number): SaveOutcome {
  ctx.logger.info({ user: request.userId, fields: Object.keys(errors) }, 'settings refused: invalid values');
  return {
    kind: 'invalid',
    errors: Object.fromEntries(
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Object.entries types its keys as string: they are the record's own Field keys
      (Object.entries(errors) as Array<[Field, string]>).map(([field, text]) => [blockId(field, version), text]),
    ),
  };
}

/** Where a change is announced: the approval channel before and after (both when it changed). */
function announcementChannels(change: { before: EffectiveSettings; after: EffectiveSettings }): string[] {
  const channels = [change.before.values.approvalChannelId, change.after.values.approvalChannelId];
  return [...new Set(channels.filter((c): c is string => Boolean(c)))];
}

/** The message that announces a change, old and new values, and what it means for requests already waiting. */
export function announcement(userId: string, changes: readonly SettingChange[]) {
  const lines = changes.map((c) => `• ${SETTING_DESCRIPTIONS[c.name].title} from ${c.from.slack} to ${c.to.slack}`);
  const text =
    changes.length === 1
      ? `<@${userId}> changed ${SETTING_DESCRIPTIONS[changes[0]!.name].title} from ${changes[0]!.from.slack} to ${changes[0]!.to.slack}.`
      : `<@${userId}> changed Mintlink's settings:\n${lines.join('\n')}`;
  return message(`${text.split('\n')[0]}`, [
    section(`:gear: ${text}`),
    // Its own block: however long the changes, this is never cut off.
    context(
      'Deletion requests already waiting keep the quorum, approvers and expiry they were opened with; new requests follow the new settings.',
    ),
  ]);
}

/**
 * After a save: the change announced in the approval channel (both, when it moved), and Home tabs refreshed.
 * Returns the channels the announcement could not be posted to, with why.
 */
export async function announceChange(
  ctx: SettingsContext,
  userId: string,
  saved: { before: EffectiveSettings; after: EffectiveSettings; changes: SettingChange[] },
): Promise<Array<{ channel: string; error: string }>> {
  const failed: Array<{ channel: string; error: string }> = [];
  const content = announcement(userId, saved.changes);
  const { teamId } = saved.after;
  const client = await ctx.slack(teamId);
  for (const channel of announcementChannels(saved)) {
    await client.chat.postMessage({ channel, ...content }).catch((error: unknown) => {
      ctx.logger.warn({ err: error, channel }, 'could not announce a settings change');
      failed.push({ channel, error: slackErrorCode(error) ?? 'no answer' });
    });
  }
  // Everyone's Home in the workspace shows the settings (the approvers, the channel): refreshed there only.
  if (teamId) ctx.home.refreshWorkspace(teamId);
  else ctx.home.refreshIn(teamId, [userId]);
  return failed;
}

export type { StoredWorkspaceSettings };
