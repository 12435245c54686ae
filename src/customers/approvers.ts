import type { WebClient } from '@slack/web-api';
import type { DeletionApprovers } from '../config/config.js';
import type { Logger } from '../logging/create-logger.js';

export type ApproverCheck = { approver: true } | { approver: false; problem?: string };

/**
 * Who may decide deletions: the listed users and the members of the listed user groups. Group members are
 * asked from Slack (usergroups.users.list, Tier 2) and kept for a minute, so clicks rarely wait on Slack.
 */
export class Approvers {
  private readonly cache = new Map<string, { members: Set<string>; at: number }>();
  private readonly loading = new Map<string, Promise<Set<string>>>();

  constructor(
    private readonly approvers: DeletionApprovers,
    private readonly client: WebClient,
    private readonly logger: Logger,
    private readonly ttlMs = 60_000,
  ) {}

  async check(userId: string): Promise<ApproverCheck> {
    if (this.approvers.users.includes(userId)) return { approver: true };
    const problems: string[] = [];
    const results = await Promise.all(
      this.approvers.userGroups.map(async (group) => {
        try {
          return (await this.members(group)).has(userId);
        } catch (error) {
          const code = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
          this.logger.warn({ err: error, group }, 'could not read a user group of approvers');
          problems.push(`the members of <!subteam^${group}> could not be read (${code})`);
          return false;
        }
      }),
    );
    if (results.some(Boolean)) return { approver: true };
    return problems.length > 0 ? { approver: false, problem: problems.join('; ') } : { approver: false };
  }

  /** Mentions of everyone who may approve, for messages. */
  mentions(): string {
    return [...this.approvers.users.map((u) => `<@${u}>`), ...this.approvers.userGroups.map((g) => `<!subteam^${g}>`)].join(', ');
  }

  private async members(group: string): Promise<Set<string>> {
    const cached = this.cache.get(group);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.members;
    const pending = this.loading.get(group);
    if (pending) return pending;
    const load = this.client.usergroups.users
      .list({ usergroup: group })
      .then((answer) => {
        const members = new Set(answer.users ?? []);
        this.cache.set(group, { members, at: Date.now() });
        return members;
      })
      .finally(() => this.loading.delete(group));
    this.loading.set(group, load);
    return load;
  }
}
