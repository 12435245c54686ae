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
  private cached: { at: number; groups: UserGroup[] } | undefined;
  private loading: Promise<UserGroup[]> | undefined;

  constructor(
    private readonly client: WebClient,
    private readonly logger: Logger,
  ) {}

  /** "@handle (Name)" of a group already read; undefined before the list was read. */
  label(id: string): string | undefined {
    const group = this.cached?.groups.find((g) => g.id === id);
    return group ? `@${group.handle}${group.name && group.name !== group.handle ? ` (${group.name})` : ''}` : undefined;
  }

  /** The groups whose handle or name holds `query` (all of them for an empty one), at most 100. */
  async matching(query: string): Promise<UserGroup[]> {
    const wanted = query.trim().replace(/^@/, '').toLowerCase();
    const groups = await this.all();
    return groups
      .filter((g) => !wanted || g.handle.toLowerCase().includes(wanted) || g.name.toLowerCase().includes(wanted))
      .slice(0, MAX_OPTIONS);
  }

  private async all(): Promise<UserGroup[]> {
    if (this.cached && Date.now() - this.cached.at < TTL_MS) return this.cached.groups;
    this.loading ??= this.client.usergroups
      .list({ include_disabled: false })
      .then((answer) => {
        const groups = (answer.usergroups ?? []).flatMap((g) =>
          g.id ? [{ id: g.id, handle: g.handle ?? g.id, name: g.name ?? '' }] : [],
        );
        this.cached = { at: Date.now(), groups };
        return groups;
      })
      .finally(() => (this.loading = undefined));
    const loading = this.loading;
    loading.catch((error: unknown) => this.logger.warn({ err: error }, 'could not list the user groups'));
    return withDeadline(loading, DEADLINE_MS);
  }
}
