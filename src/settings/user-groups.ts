import type { WebClient } from '@slack/web-api';
import { withDeadline } from '../lifecycle/with-deadline.js';
import type { Logger } from '../logging/create-logger.js';

/** How long the workspace's list of user groups serves the pickers (usergroups.list is Tier 2). */
const TTL_MS = 60_000;
const DEADLINE_MS = 2_000;
/** Options Slack shows in a select at most. */
const MAX_OPTIONS = 100;

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
  /** Per workspace: its groups as last read, and the read under way. */
  private readonly cached = new Map<string, { at: number; groups: UserGroup[] }>();
  private readonly loading = new Map<string, Promise<UserGroup[]>>();

  constructor(
    private readonly slack: (teamId: string | undefined) => Promise<WebClient>,
    private readonly logger: Logger,
  ) {}

  /** "@handle (Name)" of a group of `teamId` already read; undefined before the list was read. */
  label(id: string, teamId: string | undefined): string | undefined {
    const group = this.cached.get(teamId ?? '')?.groups.find((g) => g.id === id);
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
    const cached = this.cached.get(team);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.groups;
    let loading = this.loading.get(team);
    if (!loading) {
      loading = this.read(team).finally(() => this.loading.delete(team));
      this.loading.set(team, loading);
    }
    loading.catch((error: unknown) => this.logger.warn({ err: error }, 'could not list the user groups'));
    return withDeadline(loading, DEADLINE_MS);
  }

  private async read(team: string): Promise<UserGroup[]> {
    const client = await this.slack(team || undefined);
    const answer = await client.usergroups.list({ include_disabled: false });
    const groups = (answer.usergroups ?? []).flatMap((g) =>
      g.id ? [{ id: g.id, handle: g.handle ?? g.id, name: g.name ?? '' }] : [],
    );
    this.cached.set(team, { at: Date.now(), groups });
    return groups;
  }
}
