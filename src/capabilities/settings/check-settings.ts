import type { WebClient } from '@slack/web-api';
import { withDeadline } from '../../platform/ops/lifecycle/with-deadline.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import {
  type People,
  type WorkspaceSettings,
  LARGE_AT_RANGE,
  MAX_LISTED,
  QUORUM_RANGE,
  REMIND_HOURS_RANGE,
  TTL_HOURS_RANGE,
} from '../../tenancy/workspaces/settings-model.js';
import { FIELDS, type Field, type SubmittedSettings } from './settings-form.js';
import type { SettingsAdmins } from '../../tenancy/workspaces/settings-admins.js';

/** Problems by input, in words for the admin (Slack shows each under its input). */
export type FieldErrors = Partial<Record<Field, string>>;

/**
 * What Slack can be asked about: the values that read well (a channel or quorum with an error is left out,
 * people with an error are none), so that a form with mistakes still gets every error it can in one round.
 */
export type SlackCheckable = Pick<WorkspaceSettings, 'approvers' | 'approvalChannelId' | 'settingsAdmins'> & {
  auditViewers: People | undefined;
  quorum: WorkspaceSettings['quorum'] | undefined;
};

export type CheckedSettings =
  { ok: true; values: WorkspaceSettings } | { ok: false; errors: FieldErrors; checkable: SlackCheckable };

const USER = /^[UW][A-Z0-9]{2,}$/;
const GROUP = /^S[A-Z0-9]{2,}$/;
const CHANNEL = /^[CG][A-Z0-9]{2,}$/;

/**
 * The submitted values as settings, or what is wrong with each, before anything is asked of Slack. The
 * payload may be forged: every value is checked for its type and range (a negative quorum, ten thousand
 * approvers and a made-up id are refused here).
 */
export function parseSubmitted(s: SubmittedSettings, maxConcurrency: number): CheckedSettings {
  const errors: FieldErrors = {};
  const ids = (value: unknown, pattern: RegExp, field: Field, what: string): string[] => {
    if (!Array.isArray(value) || value.some((id) => typeof id !== 'string' || !pattern.test(id))) {
      errors[field] = `These are not ${what} Slack knows. Choose them in the list.`;
      return [];
    }
    if (value.length > MAX_LISTED) {
      errors[field] = `Choose at most ${MAX_LISTED} ${what}; ${value.length} were given.`;
      return [];
    }
    return [...new Set(value.filter((id): id is string => typeof id === 'string'))];
  };
  const people = (value: { users: unknown; userGroups: unknown }, users: Field, groups: Field): People => ({
    users: ids(value.users, USER, users, 'people'),
    userGroups: ids(value.userGroups, GROUP, groups, 'user groups'),
  });
  const number = (value: unknown, field: Field, range: { min: number; max: number }, decimal = false) => {
    const shape = decimal ? /^\d+(\.\d+)?$/ : /^\d+$/;
    const text = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
    const n = Number(text);
    if (!shape.test(text) || n < range.min || n > range.max) {
      errors[field] = `Enter a ${decimal ? 'number' : 'whole number'} from ${range.min} to ${range.max}.`;
      return undefined;
    }
    return n;
  };
  const empty = (value: unknown) => value === null || value === undefined || value === '';

  const approvers = people(s.approvers, FIELDS.approverUsers, FIELDS.approverGroups);
  const viewers = people(s.viewers, FIELDS.viewerUsers, FIELDS.viewerGroups);
  const admins = people(s.admins, FIELDS.adminUsers, FIELDS.adminGroups);
  let channel: string | undefined;
  if (!empty(s.channel)) {
    if (typeof s.channel === 'string' && CHANNEL.test(s.channel)) channel = s.channel;
    else errors[FIELDS.channel] = 'Choose a channel (a public or private channel, not a direct message).';
  }
  const quorum = number(s.quorum, FIELDS.quorum, QUORUM_RANGE);
  const largeQuorum = empty(s.largeQuorum) ? undefined : number(s.largeQuorum, FIELDS.largeQuorum, QUORUM_RANGE);
  const largeAt = empty(s.largeAt) ? undefined : number(s.largeAt, FIELDS.largeAt, LARGE_AT_RANGE);
  if (!empty(s.largeQuorum) && empty(s.largeAt) && !errors[FIELDS.largeQuorum])
    errors[FIELDS.largeAt] = 'Say from how many customers a request needs the larger number of approvals.';
  if (empty(s.largeQuorum) && !empty(s.largeAt) && !errors[FIELDS.largeAt])
    errors[FIELDS.largeQuorum] = 'Say how many approvals a request this large needs (or clear the size).';
  if (quorum !== undefined && largeQuorum !== undefined && largeQuorum < quorum)
    errors[FIELDS.largeQuorum] =
      `Large requests cannot need fewer approvals (${largeQuorum}) than the others (${quorum}).`;
  const ttlHours = number(s.ttlHours, FIELDS.ttlHours, TTL_HOURS_RANGE);
  let remindHours = number(s.remindHours, FIELDS.remindHours, REMIND_HOURS_RANGE, true);
  // A reminder minutes after the request would only be noise: 0 turns reminders off, else a quarter hour at least.
  if (remindHours !== undefined && remindHours > 0 && remindHours < MIN_REMIND_HOURS) {
    errors[FIELDS.remindHours] = `Enter 0 (no reminders) or at least ${MIN_REMIND_HOURS} hours.`;
    remindHours = undefined;
  }
  const bulkConcurrency = number(s.bulkConcurrency, FIELDS.bulkConcurrency, { min: 1, max: maxConcurrency });

  const large =
    largeQuorum !== undefined && largeAt !== undefined && !errors[FIELDS.largeQuorum] && !errors[FIELDS.largeAt]
      ? { approvals: largeQuorum, fromCustomers: largeAt }
      : undefined;
  const auditViewers = viewers.users.length + viewers.userGroups.length > 0 ? viewers : undefined;
  if (
    Object.keys(errors).length > 0 ||
    quorum === undefined ||
    ttlHours === undefined ||
    remindHours === undefined ||
    bulkConcurrency === undefined
  ) {
    const checkable: SlackCheckable = {
      approvers,
      approvalChannelId: channel,
      settingsAdmins: admins,
      auditViewers,
      quorum: quorum === undefined ? undefined : { approvals: quorum, large },
    };
    return { ok: false, errors, checkable };
  }
  return {
    ok: true,
    values: {
      approvers,
      approvalChannelId: channel,
      quorum: { approvals: quorum, large },
      requestTtlHours: ttlHours,
      remindAfterHours: remindHours,
      auditViewers,
      bulkConcurrency,
      settingsAdmins: admins,
    },
  };
}

/** The soonest reminder a setting may ask for, in hours (15 minutes). */
const MIN_REMIND_HOURS = 0.25;

/** Slack gets this long for each check: they run at once, before the submission's ack (3 s). */
const SLACK_DEADLINE_MS = 1_500;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * What only Slack can tell about the new settings: the app is in the approval channel, every user group can
 * be read, the approvers are enough people to reach the quorum, and the admin saving does not remove the last
 * settings admin (themselves). All asked at once; empty when all is well.
 */
export async function slackProblems(
  deps: { client: WebClient; admins: SettingsAdmins; teamId: string },
  values: SlackCheckable,
  userId: string,
): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const groupProblem = async (people: People, field: Field) => {
    const read = await deps.admins.people(people, deps.teamId);
    if (!read.ok)
      errors[field] =
        `The user group ${read.group} cannot be read (${read.error}): it may have been disabled, or the app lacks the usergroups:read scope. Remove it or try again.`;
    return read.ok ? read.people : undefined;
  };
  await Promise.all([
    channelProblem(deps.client, values.approvalChannelId).then((problem) => {
      if (problem) errors[FIELDS.channel] = problem;
    }),
    groupProblem(values.approvers, FIELDS.approverGroups).then((people) => {
      if (people) {
        const problem = values.quorum && quorumProblem(values.approvers, values.quorum, people.size);
        if (problem) errors[problem.field] = problem.text;
      }
    }),
    values.auditViewers ? groupProblem(values.auditViewers, FIELDS.viewerGroups) : undefined,
    (async () => {
      const people = await groupProblem(values.settingsAdmins, FIELDS.adminGroups);
      const problem = people && adminProblem(values.settingsAdmins, userId, people);
      if (problem) errors[FIELDS.adminUsers] = problem;
    })(),
  ]);
  return errors;
}

/** The app must be in the approval channel: it posts the requests there. */
async function channelProblem(client: WebClient, channelId: string | undefined): Promise<string | undefined> {
  if (!channelId) return undefined;
  const howToInvite =
    'Type /invite @Mintlink in that channel (or add the app from its name > Integrations > Add apps), then save again.';
  try {
    const { channel } = await withDeadline(client.conversations.info({ channel: channelId }), SLACK_DEADLINE_MS);
    const name = channel?.name ? `#${channel.name}` : 'this channel';
    if (channel?.is_archived) return `${name} is archived: choose another channel.`;
    if (!channel?.is_member) return `Mintlink is not in ${name}, so it could not post requests there. ${howToInvite}`;
    return undefined;
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === 'channel_not_found')
      return `Mintlink cannot see this channel: it is private and the app is not in it, or it does not exist. ${howToInvite}`;
    return `Slack could not say whether Mintlink is in this channel (${code ?? 'no answer in time'}). Try again in a moment.`;
  }
}

/** A quorum the approvers could never reach, with the numbers. */
function quorumProblem(
  approvers: People,
  quorum: WorkspaceSettings['quorum'],
  people: number,
): { field: Field; text: string } | undefined {
  if (approvers.users.length + approvers.userGroups.length === 0) return undefined; // deletion off
  const { approvals, large } = quorum;
  const most = Math.max(approvals, large?.approvals ?? 0);
  if (people >= most) return undefined;
  const field = large && large.approvals > approvals ? FIELDS.largeQuorum : FIELDS.quorum;
  return {
    field,
    text: `${most === 1 ? '1 approval is' : `${most} approvals from different approvers are`} needed, but the approvers are ${people === 1 ? '1 person' : `${people} people`}${approvers.userGroups.length > 0 ? ' (user groups counted by their members now)' : ''}: no request could ever get ${plural(most, 'approval')}. Add approvers or lower the number.`,
  };
}

/** Saving must leave someone able to change the settings: the admin saving may not remove the last one, themselves. */
function adminProblem(newAdmins: People, userId: string, people: Set<string>): string | undefined {
  if (newAdmins.users.length + newAdmins.userGroups.length === 0) return undefined; // the workspace's admins and owners
  if (people.has(userId) || people.size > 0) return undefined;
  return 'You would remove yourself as the last settings admin, and nobody could change these settings any more. Name another admin first (or leave the admins empty: then the workspace admins and owners are).';
}
