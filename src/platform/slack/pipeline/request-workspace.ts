import type { Context } from '@slack/bolt';

/** Where a payload names a workspace: interactions (team, user's team), commands and events (team_id). */
export interface WorkspaceNaming {
  team?: { id: string } | null;
  user?: { team_id?: string } | string;
  team_id?: string | null;
}

/** What a person is told when neither Slack nor the app can say which workspace a request is for. */
export const NO_WORKSPACE_TEXT =
  ':warning: Slack did not say which workspace this comes from, so nothing was done. Please try again; if it keeps happening, tell the app’s operator.';

/**
 * The workspace of each request, or '' when none can be said (the pipeline refuses such a request before its
 * listener runs, settle.ts): see requestWorkspace.
 */
export type WorkspaceOfRequest = (context: Pick<Context, 'teamId' | 'enterpriseId'>, body: WorkspaceNaming) => string;

/**
 * The pipeline's one rule for the workspace of a request, given `homeTeam`, the app's own workspace
 * (single-workspace mode's, once auth.test has said; none in distribution mode, where each installation names its
 * own): what the request names, else the app's own.
 */
export function workspaceOfRequest(homeTeam: () => string | undefined): WorkspaceOfRequest {
  return (context, body) => requestWorkspace(context, body) || homeTeam() || '';
}

/**
 * The workspace a request names, decided here once for every kind (commands, buttons, forms, shortcuts, options,
 * events, workflow steps): the installation's workspace, as Bolt authorized the request (`context.teamId`). Every
 * row a request reads or changes is looked up in this workspace only.
 *
 * It is not the person's own workspace: in a Slack Connect channel a person of another organisation acts in
 * the installing workspace's channel, and a form they submit names their own team in `team` and `user.team_id`
 * while `view.app_installed_team_id` names the installing one (Bolt authorizes by it). Their rights are the
 * installing workspace's settings (approvers are listed there by user id), and they see its rows, never their
 * own workspace's.
 *
 * An org-wide installation serves every workspace of the organisation: Bolt's teamId is the workspace the
 * payload names, or none (or the organisation itself); then the person's own workspace is the one.
 */
function requestWorkspace(context: Pick<Context, 'teamId' | 'enterpriseId'>, body: WorkspaceNaming): string {
  const installed = context.teamId;
  if (installed && installed !== context.enterpriseId) return installed;
  return namedWorkspace(body);
}

/** The workspace a payload itself names: the team, else the person's (an org-wide install's payloads have none). */
function namedWorkspace(body: WorkspaceNaming): string {
  const userTeam = typeof body.user === 'object' ? body.user.team_id : undefined;
  return body.team?.id ?? userTeam ?? body.team_id ?? '';
}
