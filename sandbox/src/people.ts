import { TEST_BOT_USER_ID, TEST_CHANNEL_ID, TEST_TEAM_ID } from './slack-ids.js';

/*
 * The sandbox's workspace: who can act in it and where. The app is configured from these (approvers,
 * audit viewers, the approval channel), so each person shows one kind of right: ask, approve, export, none.
 */

export interface Person {
  id: string;
  name: string;
  /** What the switcher says about them, in a word or two. */
  role: string;
  /** What they may do, shown under their name while the page acts as them. */
  rights: string;
  /** Initials' background on the page. */
  color: string;
  /** Their time zone (IANA), as users.info reports it: Slack shows `<!date^…>` dates in it. */
  tz: string;
}

export const PEOPLE: readonly Person[] = [
  {
    id: 'U0ALICE01',
    tz: 'Europe/Paris',
    name: 'Alice Martin',
    role: 'requester',
    rights: 'may not approve or export',
    color: '#2b6cb0',
  },
  {
    id: 'U0BEN0001',
    tz: 'America/New_York',
    name: 'Ben Okafor',
    role: 'approver',
    rights: 'approves or rejects deletions',
    color: '#2f855a',
  },
  {
    id: 'U0CHLOE01',
    tz: 'Europe/Paris',
    name: 'Chloé Dubois',
    role: 'approver',
    rights: 'approves or rejects deletions',
    color: '#b7791f',
  },
  {
    id: 'U0DAN0001',
    tz: 'Asia/Tokyo',
    name: 'Dan Kim',
    role: 'audit viewer',
    rights: 'exports the audit log',
    color: '#6b46c1',
  },
  {
    id: 'U0EVE0001',
    tz: 'UTC',
    name: 'Eve Novak',
    role: 'no rights',
    rights: 'sees how the app refuses',
    color: '#c53030',
  },
];

export const APPROVERS = ['U0BEN0001', 'U0CHLOE01'];
export const AUDIT_VIEWERS = ['U0DAN0001'];
/** Approvals a deletion needs in the sandbox: two, so a request can be seen mid-quorum. */
export const SANDBOX_QUORUM = 2;

export interface UserGroup {
  id: string;
  handle: string;
  name: string;
  members: readonly string[];
}

/** The workspace's user groups: the settings' pickers offer them, and @mentions of them show their handle. */
export const USER_GROUPS: readonly UserGroup[] = [
  { id: 'S0DELAPPR1', handle: 'deletion-approvers', name: 'Deletion approvers', members: APPROVERS },
  { id: 'S0SUPPORT1', handle: 'support-leads', name: 'Support leads', members: ['U0ALICE01', 'U0EVE0001'] },
];

export const APP_NAME = 'Mintlink';
export const APP_USER_ID = TEST_BOT_USER_ID;
export const TEAM_ID = TEST_TEAM_ID;
export const TEAM_NAME = 'Mint Demo';
/** The workspace's address as Slack would give it: its permalinks are opened on the sandbox's page itself. */
export const WORKSPACE_URL = 'https://mint-demo.slack.com/';

export interface Channel {
  id: string;
  name: string;
  topic: string;
}

export const GENERAL: Channel = { id: TEST_CHANNEL_ID, name: 'general', topic: 'Team chat: try /mintlink here' };
export const APPROVALS: Channel = {
  id: 'C0APPROVE1',
  name: 'deletion-approvals',
  topic: 'Customer deletion requests wait here for two approvals',
};
export const CHANNELS: readonly Channel[] = [GENERAL, APPROVALS];

/** The DM between a person and the app: the stand-in names it D + the user id without its U. */
export function appDmId(userId: string): string {
  return `D${userId.slice(1)}`;
}

export function personById(id: string): Person | undefined {
  return PEOPLE.find((p) => p.id === id);
}

export function userGroupById(id: string): UserGroup | undefined {
  return USER_GROUPS.find((g) => g.id === id);
}
