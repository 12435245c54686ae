import type { WebClient } from '@slack/web-api';
import type { DeletionApprovers } from '../config/config.js';
import { withDeadline } from '../lifecycle/with-deadline.js';
import type { Logger } from '../logging/create-logger.js';

export type ViewerCheck = { viewer: true } | { viewer: false; problem?: string };

/**
 * Who may export the audit log (AUDIT_VIEWERS, by default the deletion approvers): the listed users and the
 * members of the listed user groups. An export is rare and shows the whole team's actions, so group members
 * are asked from Slack at every check (usergroups.users.list), never from a cache: someone just removed from
 * a group cannot export any more. Slack gets `deadlineMs` to answer (the check runs before an ack).
 */
export class AuditViewers {
  constructor(
    private readonly viewers: DeletionApprovers,
    private readonly client: WebClient,
    private readonly logger: Logger,
    private readonly deadlineMs = 1_500,
  ) {}

  /** False when nobody at all may export (neither AUDIT_VIEWERS nor DELETION_APPROVERS is set). */
  get configured(): boolean {
    return this.viewers.users.length + this.viewers.userGroups.length > 0;
  }

  async check(userId: string): Promise<ViewerCheck> {
    if (this.viewers.users.includes(userId)) return { viewer: true };
    const problems: string[] = [];
    const memberships = await Promise.all(
      this.viewers.userGroups.map(async (group) => {
        try {
          const call = this.client.usergroups.users.list({ usergroup: group });
          call.catch(() => undefined); // an answer after the deadline must not become an unhandled rejection
          return ((await withDeadline(call, this.deadlineMs)).users ?? []).includes(userId);
        } catch (error) {
          const code = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
          this.logger.warn({ err: error, group }, 'could not read a user group of audit viewers');
          problems.push(`the members of <!subteam^${group}> could not be read (${code})`);
          return false;
        }
      }),
    );
    if (memberships.some(Boolean)) return { viewer: true };
    return problems.length > 0 ? { viewer: false, problem: problems.join('; ') } : { viewer: false };
  }

  mentions(): string {
    return [...this.viewers.users.map((u) => `<@${u}>`), ...this.viewers.userGroups.map((g) => `<!subteam^${g}>`)].join(
      ', ',
    );
  }

  /** Why `check` said no, for the person asking. */
  refusal(check: ViewerCheck): string {
    if (check.viewer) return '';
    if (!this.configured)
      return ":no_entry: The audit log export is not set up: the app's operator must set AUDIT_VIEWERS (or DELETION_APPROVERS), who may export it. Nothing was exported.";
    if (check.problem)
      return `:warning: Your right to export the audit log could not be checked (${check.problem}). Nothing was exported; try again in a moment.`;
    return `:no_entry: Only the audit viewers (${this.mentions()}) can export the audit log. Nothing was exported.`;
  }
}
