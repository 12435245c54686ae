import type { CapabilityDeps } from '../../deps.js';
import { SetupChecker } from './setup-checker.js';
import { SetupReports } from './setup-reports.js';

/** What the setup checklist's Home entry and button work with. */
export interface ChecklistContext {
  checker: SetupChecker;
  reports: SetupReports;
  settingsAdmins: CapabilityDeps['settingsAdmins'];
  home: CapabilityDeps['home'];
  /** Whether the user is a settings admin of the workspace (a cached answer: the checklist is theirs alone). */
  isAdmin(userId: string, teamId: string | undefined): Promise<boolean>;
  /** What a report was checked against: another value (the settings changed) makes it stale. */
  settingsBasis(teamId: string | undefined): string;
}

export function checklistContext(deps: CapabilityDeps): ChecklistContext {
  const logger = deps.logger.child({ capability: 'setup-checklist' });
  const checker = new SetupChecker(deps, logger);
  const isAdmin = async (userId: string, teamId: string | undefined) =>
    (await deps.settingsAdmins.check(userId, teamId)).admin;
  const reports = new SetupReports(
    (teamId) => checker.check(teamId),
    // What the checklist shows changed: the Homes of the workspace's settings admins show it now.
    (teamId) => {
      const team = teamId ?? deps.settings.homeTeamId;
      if (team) deps.home.refreshWorkspace(team, (userId) => isAdmin(userId, team));
    },
    (work) =>
      void deps.work
        .track(work)
        .catch((error: unknown) => logger.warn({ err: error }, 'could not check the setup of a workspace')),
  );
  return {
    checker,
    reports,
    settingsAdmins: deps.settingsAdmins,
    home: deps.home,
    isAdmin,
    settingsBasis: (teamId) => JSON.stringify(deps.settings.current(teamId).values),
  };
}
