import type { DeletionApprovers } from '../../platform/ops/config/config.js';
import type { Approvers } from '../../tenancy/workspaces/approvers.js';

export type ViewerCheck = { viewer: true } | { viewer: false; problem?: string };

/**
 * Who may export the audit log (the settings' audit viewers: AUDIT_VIEWERS, by default the deletion approvers): the listed users and the
 * members of the listed user groups. An export is rare and shows the whole team's actions, so group members
 * are asked from Slack at every check (usergroups.users.list), never from a cache: someone just removed from
 * a group cannot export any more. Slack gets `deadlineMs` to answer (the check runs before an ack).
 */
export class AuditViewers {
  private readonly viewers: (teamId: string | undefined) => DeletionApprovers;

  /**
   * `viewers`: the list, or where to read the one in force (it changes with the settings); `members`: the app's
   * one membership check (the deletion approvers'), asked here always afresh.
   */
  constructor(
    viewers: DeletionApprovers | ((teamId: string | undefined) => DeletionApprovers),
    private readonly members: Approvers,
    /** Distribution mode: each workspace's settings admins set it up; the operator's environment is no answer. */
    private readonly setUpInSlackOnly = false,
  ) {
    this.viewers = typeof viewers === 'function' ? viewers : () => viewers;
  }

  /** False when nobody at all may export in the workspace (neither AUDIT_VIEWERS nor DELETION_APPROVERS is set). */
  configured(teamId: string | undefined): boolean {
    const viewers = this.viewers(teamId);
    return viewers.users.length + viewers.userGroups.length > 0;
  }

  /** Whether the user may export their workspace's audit log. */
  async check(userId: string, teamId: string | undefined): Promise<ViewerCheck> {
    const found = await this.members.check(userId, { askSlack: 'always', among: this.viewers(teamId), teamId });
    if (found.approver) return { viewer: true };
    return found.problem ? { viewer: false, problem: found.problem } : { viewer: false };
  }

  /**
   * Whether Home shows this user the export: a viewer, by the group members cached for a minute (Home is
   * built often; the export itself asks Slack afresh), or anyone when Slack could not say, so that the button
   * tells them why.
   */
  async mayBeViewer(userId: string, teamId: string | undefined): Promise<boolean> {
    const found = await this.members.check(userId, { among: this.viewers(teamId), teamId });
    return found.approver || found.problem !== undefined;
  }

  mentions(teamId: string | undefined): string {
    return this.members.mentions(this.viewers(teamId));
  }

  /** Why `check` said no, for the person asking. */
  refusal(check: ViewerCheck, teamId: string | undefined): string {
    if (check.viewer) return '';
    if (!this.configured(teamId))
      return this.setUpInSlackOnly
        ? ":no_entry: The audit log export is not set up in this workspace: a settings admin chooses who may export it (the audit viewers, or the deletion approvers) in Settings on the app's Home. Nothing was exported."
        : ":no_entry: The audit log export is not set up: the app's operator must set AUDIT_VIEWERS (or DELETION_APPROVERS), who may export it, or a settings admin choose them in Settings on the app's Home. Nothing was exported.";
    if (check.problem)
      return `:warning: Your right to export the audit log could not be checked (${check.problem}). Nothing was exported; try again in a moment.`;
    return `:no_entry: Only the audit viewers (${this.mentions(teamId)}) can export the audit log. Nothing was exported.`;
  }
}
