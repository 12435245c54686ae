import type { WebClient } from '@slack/web-api';
import type { DeletionApprovers } from '../config/config.js';
import { withDeadline } from '../lifecycle/with-deadline.js';
import type { Logger } from '../logging/create-logger.js';

export type ApproverCheck = { approver: true } | { approver: false; problem?: string };

/** 'always': do not trust the cache; 'before refusing': trust a cached yes, confirm a cached no. */
export type AskSlack = 'always' | 'before refusing';

/**
 * Who may decide deletions: the listed users and the members of the listed user groups. Group members are
 * asked from Slack (usergroups.users.list, Tier 2) and kept for a minute, so clicks and Home tabs rarely wait
 * on Slack; the decision itself asks afresh, so someone just removed from a group cannot decide any more.
 */
export class Approvers {
  private readonly cache = new Map<string, { members: Set<string>; at: number }>();
  private readonly loading = new Map<string, Promise<Set<string>>>();

  constructor(
    private readonly approvers: DeletionApprovers,
    private readonly client: WebClient,
    private readonly logger: Logger,
    private readonly ttlMs = 60_000,
    /** Slack gets this long to answer: the check runs before an ack or a views.open (3 s for both). */
    private readonly deadlineMs = 1_500,
  ) {}

  /**
   * `askSlack`: 'always' does not trust the cache (the decision itself); 'before refusing' trusts a cached yes
   * but confirms a cached no (a click: someone just added is not turned away). A request under way counts.
   */
  async check(userId: string, options: { askSlack?: AskSlack } = {}): Promise<ApproverCheck> {
    if (this.approvers.users.includes(userId)) return { approver: true };
    const problems: string[] = [];
    const results = await Promise.all(
      this.approvers.userGroups.map(async (group) => {
        try {
          const known = await this.members(group, options.askSlack === 'always');
          if (known.members.has(userId) || !known.cached || options.askSlack !== 'before refusing') return known.members.has(userId);
          return (await this.members(group, true)).members.has(userId);
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

  private async members(group: string, fresh: boolean): Promise<{ members: Set<string>; cached: boolean }> {
    const cached = this.cache.get(group);
    if (!fresh && cached && Date.now() - cached.at < this.ttlMs) return { members: cached.members, cached: true };
    let load = this.loading.get(group);
    if (!load) {
      load = this.client.usergroups.users
        .list({ usergroup: group })
        .then((answer) => {
          const members = new Set(answer.users ?? []);
          this.cache.set(group, { members, at: Date.now() });
          return members;
        })
        .finally(() => this.loading.delete(group));
      load.catch(() => undefined); // whoever waits sees the failure; a load left behind after a timeout must not crash
      this.loading.set(group, load);
    }
    return { members: await withDeadline(load, this.deadlineMs), cached: false };
  }
}
