import type { CapabilityDeps } from '../../deps.js';
import type { HistoryViewer } from '../../platform/store/history.js';
import { auditViewersOf } from '../../tenancy/workspaces/settings-model.js';

/** Who is looking, and what they may see: for the query, and for the line that says it. */
export type Viewer = HistoryViewer & { userId: string };

/**
 * What a person may see in History, asked afresh at each page (the checks use the app's one cache of group
 * members and of Slack's admins, a minute at most): the audit viewers and the settings admins see everything
 * made in the workspace; the deletion approvers their own rows and every deletion request; everyone else their
 * own rows. A check Slack could not answer counts as no: the person sees less, never more.
 */
export async function viewerOf(
  deps: Pick<CapabilityDeps, 'approvers' | 'settingsAdmins' | 'settings'>,
  userId: string,
  teamId: string,
): Promise<Viewer> {
  const values = deps.settings.current(teamId).values;
  const [auditViewer, admin, approver] = await Promise.all([
    deps.approvers.check(userId, { among: auditViewersOf(values), teamId }),
    deps.settingsAdmins.check(userId, teamId),
    deps.approvers.check(userId, { teamId }),
  ]);
  if (auditViewer.approver || admin.admin) return { everything: true, userId };
  return { everything: false, userId, deletions: approver.approver };
}

/** Whether this viewer may see a row made by `actorId` of `kind`. */
export function maySee(viewer: Viewer, row: { actorId: string; kind: string }): boolean {
  if (viewer.everything || row.actorId === viewer.userId) return true;
  return viewer.deletions && row.kind === 'deletion';
}

/** Whether this viewer may filter on another person's rows. */
export function mayFilterOthers(viewer: Viewer): boolean {
  return viewer.everything || viewer.deletions;
}

/** What the list holds for this viewer, said above it. */
export function scopeText(viewer: Viewer): string {
  if (viewer.everything) return 'Everything made through the app in this workspace';
  if (viewer.deletions) return 'What you made, and every deletion request (you approve them)';
  return 'What you made through the app';
}
