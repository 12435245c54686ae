import type { WebClient } from '@slack/web-api';
import type { StoredMintCallOutcome } from '../../platform/store/mint-call-outcomes.js';
import { slackErrorCode } from '../../platform/slack/web-api/slack-error-code.js';
import type { People, WorkspaceSettings } from '../workspaces/settings-model.js';
import { count, fail, listed, type Naming, pass, type SetupItem, warn } from './setup-items.js';

/** Where the settings are changed: in Slack (Settings on App Home), or only in the environment. */
export type SettingsPlace = 'slack' | 'env';

/** The people a list names who are really there, and what is wrong with the others. */
interface Resolved {
  people: Set<string>;
  problems: string[];
}

/** How many Slack reads one list may start at once (users.info is Tier 4, usergroups.users.list Tier 2). */
const READS_AT_ONCE = 8;

/**
 * Resolves a list of users and user groups to people, as Slack knows them now: a user must exist and be
 * active (users.info), a group must be readable and have members (usergroups.users.list).
 */
export async function resolvePeople(client: WebClient, among: People, naming: Naming): Promise<Resolved> {
  const people = new Set<string>();
  const problems: string[] = [];
  await inBatches(among.users, async (user) => {
    try {
      const { user: found } = await client.users.info({ user: user });
      if (found?.deleted) problems.push(`${naming.user(user)} is deactivated`);
      else people.add(user);
    } catch (error) {
      problems.push(`${naming.user(user)} is not found (${slackErrorCode(error) ?? 'no answer'})`);
    }
  });
  await inBatches(among.userGroups, async (group) => {
    try {
      const members = (await client.usergroups.users.list({ usergroup: group })).users ?? [];
      if (members.length === 0) problems.push(`${naming.group(group)} has no members`);
      for (const member of members) people.add(member);
    } catch (error) {
      problems.push(`${naming.group(group)} cannot be read (${slackErrorCode(error) ?? 'no answer'})`);
    }
  });
  return { people, problems };
}

/** The approval channel exists, is not archived, and the bot is in it (conversations.info). */
export async function checkApprovalChannel(
  client: WebClient,
  channelId: string | undefined,
  place: SettingsPlace,
  naming: Naming,
): Promise<SetupItem> {
  const choose =
    place === 'slack' ? 'choose one in Settings on App Home (or set APPROVAL_CHANNEL_ID)' : 'set APPROVAL_CHANNEL_ID';
  if (!channelId)
    return fail(
      'approval-channel',
      'Approval channel: none is set, so nobody can request a customer deletion',
      `Create a channel for deletion requests, ${choose}, and type /invite @Mintlink in it.`,
    );
  const shown = naming.channel(channelId);
  try {
    const { channel } = await client.conversations.info({ channel: channelId });
    if (channel?.is_archived)
      return fail('approval-channel', `Approval channel ${shown}: archived`, `Unarchive it, or ${choose}.`);
    if (!channel?.is_member)
      return fail(
        'approval-channel',
        `Approval channel ${shown}: the app is not a member, so requests cannot be posted there`,
        'Type /invite @Mintlink in that channel.',
      );
    return pass('approval-channel', `Approval channel ${shown}: exists, and the app is a member`);
  } catch (error) {
    const code = slackErrorCode(error) ?? 'no answer';
    return fail(
      'approval-channel',
      `Approval channel ${shown}: Slack does not find it (${code})`,
      `For a private channel, type /invite @Mintlink in it first; otherwise ${choose}.`,
    );
  }
}

/**
 * The approvers resolve to people, and enough of them for the largest quorum: two items, the approvers and the
 * quorum. The requester never approves their own request: with exactly as many approvers as the quorum, a
 * request by one of them can never be approved (a warning: others' requests still can); fewer blocks.
 */
export async function checkApprovers(
  client: WebClient,
  settings: Pick<WorkspaceSettings, 'approvers' | 'quorum'>,
  place: SettingsPlace,
  naming: Naming,
): Promise<SetupItem[]> {
  const where = place === 'slack' ? 'in Settings on App Home (or DELETION_APPROVERS)' : 'in DELETION_APPROVERS';
  const { approvers, quorum } = settings;
  if (approvers.users.length + approvers.userGroups.length === 0)
    return [
      fail(
        'approvers',
        'Deletion approvers: nobody is named, so no deletion request can be approved',
        `Name the people or user groups who approve customer deletions ${where}.`,
      ),
    ];
  const { people, problems } = await resolvePeople(client, approvers, naming);
  const named = namedIn(approvers, naming);
  const items = [
    problems.length > 0
      ? fail(
          'approvers',
          `Deletion approvers: ${listed(problems)}`,
          `Replace or remove ${problems.length === 1 ? 'it' : 'them'} ${where}.`,
        )
      : pass('approvers', `Deletion approvers: ${named} (${count(people.size, 'person', 'people')})`),
  ];
  const needed = Math.max(quorum.approvals, quorum.large?.approvals ?? 0);
  const rule = `Quorum: each request needs ${count(needed, 'approval')}`;
  const approversAre = count(people.size, 'approver');
  if (people.size < needed)
    items.push(
      fail(
        'quorum',
        `${rule}, but there ${people.size === 1 ? 'is' : 'are'} ${approversAre}: no request can ever be approved`,
        `Add approvers ${where}, or lower the quorum.`,
      ),
    );
  // Exactly as many: the requester never approves their own request, so only theirs cannot be approved.
  else if (people.size === needed)
    items.push(
      warn(
        'quorum',
        `${rule} from the ${approversAre}, never the requester’s own: a request by one of the approvers can never be approved`,
        `Add an approver ${where}, or lower the quorum, if approvers request deletions too.`,
      ),
    );
  else items.push(pass('quorum', `${rule} from the ${approversAre}, never the requester’s own`));
  return items;
}

/** Audit viewers (when named apart from the approvers) and settings admins (when named) resolve to people. */
export async function checkPeopleLists(
  client: WebClient,
  settings: Pick<WorkspaceSettings, 'auditViewers' | 'settingsAdmins'>,
  place: SettingsPlace,
  naming: Naming,
): Promise<SetupItem[]> {
  const lists = [
    {
      key: 'audit-viewers',
      title: 'Audit viewers',
      among: settings.auditViewers,
      unset: 'the deletion approvers, since no one else is named',
      variable: 'AUDIT_VIEWERS',
    },
    {
      key: 'settings-admins',
      title: 'Settings admins',
      among:
        settings.settingsAdmins.users.length + settings.settingsAdmins.userGroups.length > 0
          ? settings.settingsAdmins
          : undefined,
      unset: 'the workspace’s admins and owners',
      variable: 'SETTINGS_ADMINS',
    },
  ];
  return Promise.all(
    lists.map(async ({ key, title, among, unset, variable }) => {
      if (!among) return pass(key, `${title}: ${unset}`);
      const { people, problems } = await resolvePeople(client, among, naming);
      const where = place === 'slack' ? `in Settings on App Home (or ${variable})` : `in ${variable}`;
      if (problems.length > 0)
        return fail(
          key,
          `${title}: ${listed(problems)}`,
          `Replace or remove ${problems.length === 1 ? 'it' : 'them'} ${where}.`,
        );
      return pass(key, `${title}: ${namedIn(among, naming)} (${count(people.size, 'person', 'people')})`);
    }),
  );
}

/** How the workspace's Mint account stands, for the Mint item. */
export type MintAccountState =
  | { kind: 'operator'; keyId: string }
  /** `keyId`: the key connected now (undefined: it cannot be opened, so no call is credited to it). */
  | { kind: 'connected'; keyId: string | undefined }
  | { kind: 'none' };

/**
 * The Mint service answered with this key: the last real call of the account, as every process recorded it
 * in the database. Calls made with an older key (or before the account was connected again) do not count.
 */
export function checkMintService(
  account: MintAccountState,
  last: StoredMintCallOutcome | undefined,
  naming: Naming,
): SetupItem {
  const replaceKey =
    account.kind === 'operator'
      ? 'Put the API key the Mint service issued to you in MINT_API_KEY and restart the app.'
      : 'An admin of this workspace replaces the key on App Home (Replace key).';
  if (account.kind === 'none')
    return fail(
      'mint',
      'Mint service: no Mint account is connected',
      'An admin of this workspace connects it on App Home (Connect your Mint account).',
    );
  // By the key's id, never by time: a call made with the old key must not be credited to a new one.
  const current = last !== undefined && account.keyId !== undefined && last.keyId === account.keyId;
  if (!last || !current)
    return warn(
      'mint',
      'Mint service: not called with this key yet',
      'Create a mint link or a wallet, or browse templates, to try the key.',
    );
  const when = naming.date(last.at);
  if (last.outcome === 'refused')
    return fail('mint', `Mint service: refused the key (${last.status ?? 401}) on the last call, ${when}`, replaceKey);
  if (last.outcome === 'unavailable')
    return warn(
      'mint',
      `Mint service: did not answer the last call, ${when}${last.status ? ` (${last.status})` : ''}`,
      'Check MINT_API_BASE_URL and the service’s status; the app keeps trying on its own.',
    );
  return pass('mint', `Mint service: answered ${when}`);
}

/** The users and user groups a list names, as the reader sees them. */
function namedIn(among: People, naming: Naming): string {
  return listed([...among.users.map((id) => naming.user(id)), ...among.userGroups.map((id) => naming.group(id))]);
}

async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += READS_AT_ONCE)
    await Promise.all(items.slice(i, i + READS_AT_ONCE).map((item) => work(item)));
}

/** What the checks of one workspace read: its bot's client, the settings in force there, its Mint account. */
export interface WorkspaceProbe {
  client: WebClient;
  settings: WorkspaceSettings;
  place: SettingsPlace;
  /** The workspace's Mint account and its last real call (read from the database). */
  mint: () => Promise<{ account: MintAccountState; last: StoredMintCallOutcome | undefined }>;
  naming: Naming;
}

/**
 * Every check of one workspace's setup after its bot token: the approval channel, the approvers and the
 * quorum, the audit viewers and settings admins, the Mint service. Slack is asked in parallel.
 */
export async function checkWorkspaceSetup(probe: WorkspaceProbe): Promise<SetupItem[]> {
  const { client, settings, place, naming } = probe;
  const [channel, approvers, lists, mint] = await Promise.all([
    checkApprovalChannel(client, settings.approvalChannelId, place, naming),
    checkApprovers(client, settings, place, naming),
    checkPeopleLists(client, settings, place, naming),
    probe.mint(),
  ]);
  return [channel, ...approvers, ...lists, checkMintService(mint.account, mint.last, naming)];
}
