import type { CapabilityDeps } from '../../deps.js';
import type { HistoryItem, HistoryViewer } from '../../platform/store/history/search.js';
import { IN_FORCE_AUDIENCE, groupAudience, userAudience } from '../../platform/store/history/write.js';
import { auditViewersOf } from '../../tenancy/workspaces/settings-model.js';

/** Who is looking, and what they may see: for the query, and for the line that says it. */
export type Viewer = HistoryViewer & {
  userId: string;
  /** Whether they decide deletion requests now (the approvers in force, or a group some request was asked of). */
  approves: boolean;
};

/**
 * What a person may see in History, asked afresh at each page (the checks use the app's one cache of group
 * members and of Slack's admins, a minute at most): the audit viewers and the settings admins see everything
 * made in the workspace; everyone else their own rows and the deletion requests they were asked to decide:
 * named in the request's approvers, a member of one of its user groups, or (a request from before its approvers
 * were recorded) an approver in force. A check Slack could not answer counts as no: the person sees less, never
 * more.
 */
export async function viewerOf(
  deps: Pick<CapabilityDeps, 'approvers' | 'settingsAdmins' | 'settings' | 'store'>,
  userId: string,
  teamId: string,
): Promise<Viewer> {
  const values = deps.settings.current(teamId).values;
  const [auditViewer, admin, approver, groups] = await Promise.all([
    deps.approvers.check(userId, { among: auditViewersOf(values), teamId }),
    deps.settingsAdmins.check(userId, teamId),
    deps.approvers.check(userId, { teamId }),
    deps.store.history.askedGroups(teamId),
  ]);
  if (auditViewer.approver || admin.admin) return { everything: true, userId, approves: true };
  const memberships = await Promise.all(
    groups.map(async (group) => {
      const check = await deps.approvers.check(userId, { among: { users: [], userGroups: [group] }, teamId });
      return check.approver ? [group] : [];
    }),
  );
  const memberOf = memberships.flat();
  return {
    everything: false,
    userId,
    audiences: viewerAudiences({ userId, groups: memberOf, approverInForce: approver.approver }),
    approves: approver.approver || memberOf.length > 0,
  };
}

/**
 * The audiences a person belongs to, as History's deletion rows record who was asked to decide them: the person,
 * the user groups they are a member of, and (when they approve in the settings in force) the approvers in force,
 * whom the requests from before their approvers were recorded are asked of.
 */
export function viewerAudiences(person: {
  userId: string;
  groups: readonly string[];
  approverInForce: boolean;
}): string[] {
  return [
    userAudience(person.userId),
    ...person.groups.map((group) => groupAudience(group)),
    ...(person.approverInForce ? [IN_FORCE_AUDIENCE] : []),
  ];
}

/**
 * Result `id` of workspace `teamId` if this viewer may see it: everything, their own, or a deletion request asked
 * of one of their audiences (each a primary-key read).
 */
export async function visibleResult(
  deps: Pick<CapabilityDeps, 'store'>,
  teamId: string,
  id: string,
  viewer: HistoryViewer,
): Promise<HistoryItem | undefined> {
  const item = await deps.store.history.get(teamId, id);
  if (!item || viewer.everything || item.actorId === viewer.userId) return item;
  if (item.kind !== 'deletion') return undefined;
  return (await deps.store.history.askedOfAny(id, viewer.audiences)) ? item : undefined;
}

/** Whether this viewer may filter on another person's rows. */
export function mayFilterOthers(viewer: Viewer): boolean {
  return viewer.everything || viewer.approves;
}

/** What the list holds for this viewer, said above it. */
export function scopeText(viewer: Viewer): string {
  if (viewer.everything) return 'Everything made through the app in this workspace';
  if (viewer.approves) return 'What you made, and the deletion requests you were asked to decide';
  return 'What you made through the app';
}
