import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import { withDeadline } from '../../platform/ops/lifecycle/with-deadline.js';
import type { Logger } from '../../platform/ops/telemetry/create-logger.js';

/** How long the workspace's list of user groups serves the pickers (usergroups.list is Tier 2). */
const TTL_MS = 60_000;
const DEADLINE_MS = 2_000;
/** Options Slack shows in a select at most. */
const MAX_OPTIONS = 100;
/**
 * The bound of what is kept: groups, summed over the workspaces kept (the least recently used workspace's list
 * goes first). Only admins with the settings form open ask, so a few workspaces' lists are kept at a time.
 */
export const USER_GROUPS_KEPT = 20_000;

export interface UserGroup {
  id: string;
  handle: string;
  name: string;
}

/**
 * The workspace's user groups for the settings' pickers (usergroups.list, usergroups:read), kept a minute:
 * the pickers ask as the admin types, and the form names the groups it shows.
 */
export class UserGroups {
  /** Per workspace: its groups as last read; `fetch` shares one read among everyone asking at once. */
  private readonly lists: LRUCache<string, UserGroup[]>;

  constructor(
    private readonly slack: (teamId: string | undefined) => Promise<WebClient>,
    private readonly logger: Logger,
    options: { maxGroups?: number } = {},
  ) {
    this.lists = new LRUCache<string, UserGroup[]>({
      maxSize: options.maxGroups ?? USER_GROUPS_KEPT,
      // An empty list counts as one: a workspace without groups still takes room.
      sizeCalculation: (groups) => Math.max(1, groups.length),
      ttl: TTL_MS,
      // A list is kept past its minute for labels (the form names what it read), never for the pickers.
      allowStale: false,
      fetchMethod: (team) => this.read(team),
    });
  }

  /** How many groups are kept, over every workspace. */
  get kept(): number {
    return this.lists.calculatedSize;
  }

  /** "@handle (Name)" of a group of `teamId` already read; undefined before the list was read. */
  label(id: string, teamId: string | undefined): string | undefined {
    const group = this.lists.peek(teamId ?? '', { allowStale: true })?.find((g) => g.id === id);
    return group ? `@${group.handle}${group.name && group.name !== group.handle ? ` (${group.name})` : ''}` : undefined;
  }

  /** The groups of `teamId` whose handle or name holds `query` (all of them for an empty one), at most 100. */
  async matching(query: string, teamId: string | undefined): Promise<UserGroup[]> {
    const wanted = query.trim().replace(/^@/, '').toLowerCase();
    const groups = await this.all(teamId ?? '');
    return groups
      .filter((g) => !wanted || g.handle.toLowerCase().includes(wanted) || g.name.toLowerCase().includes(wanted))
      .slice(0, MAX_OPTIONS);
  }

  private async all(team: string): Promise<UserGroup[]> {
    const loading = this.lists.fetch(team).then((groups) => groups ?? []);
    loading.catch((error: unknown) => this.logger.warn({ err: error }, 'could not list the user groups'));
    return withDeadline(loading, DEADLINE_MS);
  }

  private async read(team: string): Promise<UserGroup[]> {
    const client = await this.slack(team || undefined);
    const answer = await client.usergroups.list({ include_disabled: false });
    return (answer.usergroups ?? []).flatMap((g) =>
      g.id ? [{ id: g.id, handle: g.handle ?? g.id, name: g.name ?? '' }] : [],
    );
  }
}
