import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { DeletionApprovers } from '../../platform/ops/config/config.js';
import { withDeadline } from '../../platform/ops/lifecycle/with-deadline.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { errorMessage, stringFieldOf } from '../../platform/unknown-fields.js';

export type ApproverCheck = { approver: true } | { approver: false; problem?: string };

/** 'always': do not trust the cache; 'before refusing': trust a cached yes, confirm a cached no. */
export type AskSlack = 'always' | 'before refusing';

/**
 * The bound of the group members kept: member ids, summed over the groups kept (the least recently used group
 * goes first). A group larger than this is read for each check and not kept.
 */
export const GROUP_MEMBERS_KEPT = 200_000;

export interface ApproversOptions {
  /** How long an answer from Slack serves clicks and Home tabs. */
  ttlMs?: number;
  /** Slack gets this long to answer: the check runs before an ack or a views.open (3 s for both). */
  deadlineMs?: number;
  /** The cache's clock (tests move it instead of waiting). */
  clock?: { now(): number };
  /** At most this many member ids are kept, over every group (GROUP_MEMBERS_KEPT). */
  maxMembersKept?: number;
}

/**
 * Who may decide deletions: the listed users and the members of the listed user groups. Group members are
 * asked from Slack (usergroups.users.list, Tier 2) and kept for a minute, so clicks and Home tabs rarely wait
 * on Slack; the decision itself asks afresh, so someone just removed from a group cannot decide any more.
 */
export class Approvers {
  /** Members by user group, once a group was asked for (see `groups`). */
  private groupsKept: LRUCache<string, Set<string>> | undefined;
  private readonly deadlineMs: number;

  /** `approvers`: the list, or where to read the one in force in a workspace (it changes with the settings). */
  private readonly listed: (teamId: string | undefined) => DeletionApprovers;
  /** The bot's client in a workspace (user groups are read with that workspace's token). */
  private readonly clientOf: (teamId: string | undefined) => Promise<WebClient>;

  constructor(
    approvers: DeletionApprovers | ((teamId: string | undefined) => DeletionApprovers),
    client: WebClient | ((teamId: string | undefined) => Promise<WebClient>),
    private readonly logger: Logger,
    private readonly options: ApproversOptions = {},
  ) {
    this.listed = typeof approvers === 'function' ? approvers : () => approvers;
    this.clientOf = typeof client === 'function' ? client : () => Promise.resolve(client);
    this.deadlineMs = options.deadlineMs ?? 1_500;
  }

  /** How many groups, and member ids over them, are kept now. */
  get kept(): { groups: number; members: number } {
    return { groups: this.groupsKept?.size ?? 0, members: this.groupsKept?.calculatedSize ?? 0 };
  }

  /**
   * Members by user group; `fetch` shares one Slack call among everyone asking at once. Made at the first group
   * asked for: an LRU with a ttl allocates all its places at once, and lists without groups never need it.
   */
  private get groups(): LRUCache<string, Set<string>> {
    const { options } = this;
    return (this.groupsKept ??= new LRUCache<string, Set<string>>({
      max: 1_000,
      // A group costs its members: a few large groups fill the bound as many small ones do.
      maxSize: options.maxMembersKept ?? GROUP_MEMBERS_KEPT,
      sizeCalculation: (members) => Math.max(1, members.size),
      ttl: options.ttlMs ?? 60_000,
      // Staleness read from the clock on every check (the default caches it for a millisecond of real time).
      ...(options.clock ? { perf: options.clock, ttlResolution: 0 } : {}),
      // Keyed by workspace and group: each workspace's groups are read with its own token.
      fetchMethod: async (key) => {
        const [team, group] = key.split(' ');
        const client = await this.clientOf(team || undefined);
        return new Set((await client.usergroups.users.list({ usergroup: group ?? '' })).users ?? []);
      },
    }));
  }

  /**
   * `askSlack`: 'always' does not trust the cache (the decision itself); 'before refusing' trusts a cached yes
   * but confirms a cached no (a click: someone just added is not turned away). A request under way counts.
   * `among`: check against this list rather than the one in force (the approvers a request was opened with).
   * `teamId`: the workspace (its settings and its token); the app's own workspace when not given.
   */
  async check(
    userId: string,
    options: { askSlack?: AskSlack; among?: DeletionApprovers | undefined; teamId?: string | undefined } = {},
  ): Promise<ApproverCheck> {
    const { teamId } = options;
    const approvers = options.among ?? this.listed(teamId);
    if (approvers.users.includes(userId)) return { approver: true };
    const problems: string[] = [];
    const results = await Promise.all(
      approvers.userGroups.map(async (group) => {
        try {
          const key = groupKey(teamId, group);
          const cached = options.askSlack !== 'always' && this.groups.has(key);
          const members = await this.members(key, options.askSlack === 'always');
          if (members.has(userId) || !cached || options.askSlack !== 'before refusing') return members.has(userId);
          return (await this.members(key, true)).has(userId);
        } catch (error) {
          const code = stringFieldOf(error, 'data', 'error') ?? errorMessage(error);
          this.logger.warn({ err: error, group }, 'could not read a user group of approvers');
          problems.push(`the members of <!subteam^${group}> could not be read (${code})`);
          return false;
        }
      }),
    );
    if (results.some(Boolean)) return { approver: true };
    return problems.length > 0 ? { approver: false, problem: problems.join('; ') } : { approver: false };
  }

  /** Mentions of everyone who may approve (of `among`, when given, else in force in `teamId`), for messages. */
  mentions(among?: DeletionApprovers, teamId?: string): string {
    const approvers = among ?? this.listed(teamId);
    return [...approvers.users.map((u) => `<@${u}>`), ...approvers.userGroups.map((g) => `<!subteam^${g}>`)].join(', ');
  }

  /**
   * Everyone in these lists, read now (group members asked from Slack afresh), or the first group that could
   * not be read. For checks that need the people themselves: how many could approve, who stays an admin.
   */
  async people(
    among: DeletionApprovers,
    teamId?: string,
  ): Promise<{ ok: true; people: Set<string> } | { ok: false; group: string; error: string }> {
    const people = new Set(among.users);
    // Every group asked at once: the caller has one deadline's time, not one per group.
    const reads = await Promise.all(
      among.userGroups.map(async (group) => {
        try {
          const load = this.groups.fetch(groupKey(teamId, group), { forceRefresh: true });
          load.catch(() => undefined);
          const members = await withDeadline(load, this.deadlineMs);
          return members ? { group, members } : { group, error: 'Slack did not answer in time' };
        } catch (error) {
          const code = stringFieldOf(error, 'data', 'error') ?? errorMessage(error);
          return { group, error: code };
        }
      }),
    );
    for (const read of reads) {
      if (!read.members) return { ok: false, group: read.group, error: read.error ?? 'unknown error' };
      for (const member of read.members) people.add(member);
    }
    return { ok: true, people };
  }

  /**
   * Everyone who may approve (of `among`, when given, else in force in `teamId`), group members as known within
   * the minute (asked from Slack when not): for Home refreshes, which go on without a group Slack cannot give.
   */
  async everyoneKnown(among: DeletionApprovers | undefined, teamId: string): Promise<Set<string>> {
    const approvers = among ?? this.listed(teamId);
    const people = new Set(approvers.users);
    await Promise.all(
      approvers.userGroups.map(async (group) => {
        try {
          for (const member of await this.members(groupKey(teamId, group), false)) people.add(member);
        } catch (error) {
          this.logger.warn({ err: error, group }, 'could not read a user group of approvers');
        }
      }),
    );
    return people;
  }

  /** The group's members; a late answer still fills the cache after the caller stopped waiting. */
  private async members(key: string, fresh: boolean): Promise<Set<string>> {
    const load = this.groups.fetch(key, { forceRefresh: fresh });
    load.catch(() => undefined); // whoever waits sees the failure; one left behind after the deadline must not crash
    const members = await withDeadline(load, this.deadlineMs);
    return members ?? new Set();
  }
}

/** A user group of one workspace, as the cache knows it (ids hold no spaces). */
function groupKey(teamId: string | undefined, group: string): string {
  return `${teamId ?? ''} ${group}`;
}
