import { loadConfig, loadDotEnv } from '../platform/ops/config/load-config.js';
import { type DoctorReport, runDoctor } from './doctor-report.js';
import { refuseOtherArguments } from './operator-command.js';
import { INSTALL_PATH } from '../tenancy/installations/oauth-options.js';
import { blocks, type SetupItem } from '../tenancy/setup-checks/setup-items.js';
import { errorMessage } from '../platform/unknown-fields.js';

const USAGE = `Usage: npm run -s doctor

Checks the setup with what Slack and the database say now: the configuration, the database (reachable, every
migration applied), Socket Mode's app-level token or HTTP mode's PUBLIC_URL, the bot token and its scopes, the
approval channel and the app's membership, the approvers and the quorum, the audit viewers and settings admins,
and how the Mint service answered the last call made with this key. Each problem comes with what to do.
In distribution mode: the operator's part, then each installed workspace in a few lines.
Exit status: 0 when nothing blocks, 1 otherwise (2: wrong arguments). Reads the same environment (or .env)
and database as the app; changes nothing.`;

/** `npm run -s doctor` (`node dist/mintlink.mjs doctor`): exit 0 when nothing blocks, 1 otherwise. */
export async function runDoctorCommand(args: readonly string[]): Promise<number> {
  const refused = refuseOtherArguments(args, [], USAGE);
  if (refused !== undefined) return refused;
  loadDotEnv();
  const loaded = loadConfig(process.env, `${mark('fail')} Configuration: the app would not start`);
  if (!loaded.ok) {
    process.stdout.write(`Mintlink setup doctor\n\n${loaded.message}\n`);
    return 1;
  }
  try {
    const report = await runDoctor(loaded.config);
    process.stdout.write(formatReport(report));
    return blocking(report) ? 1 : 0;
  } catch (error) {
    // A check that failed in a way none foresaw: one line, never a stack trace.
    process.stdout.write(`Mintlink setup doctor could not finish: ${errorMessage(error)}\n`);
    return 1;
  }
}

function blocking(report: DoctorReport): boolean {
  return blocks(report.operator) || (report.workspacesBlock && report.workspaces.some((w) => blocks(w.items)));
}

/** The report as the terminal shows it: a mark per item, and under each that does not pass, what to do. */
export function formatReport(report: DoctorReport): string {
  const lines = [`Mintlink setup doctor: ${report.heading}`, '', ...report.operator.flatMap((item) => itemLines(item))];
  if (report.workspacesBlock) {
    for (const workspace of report.workspaces)
      lines.push('', workspace.title, ...workspace.items.flatMap((item) => itemLines(item)));
  } else {
    const where = report.installUrl ?? `${INSTALL_PATH} of PUBLIC_URL`;
    const databaseRead = report.operator.find((item) => item.key === 'database')?.state !== 'fail';
    lines.push(
      '',
      databaseRead
        ? `Installed workspaces: ${report.workspaces.length}${report.workspaces.length === 0 ? ' (none yet)' : ''}; installers add the app at ${where}`
        : 'Installed workspaces: not known (the database could not be read)',
    );
    for (const workspace of report.workspaces) {
      const off = workspace.items.filter((item) => item.state !== 'pass');
      const failing = workspace.items.filter((item) => item.state === 'fail').length;
      lines.push(
        off.length === 0
          ? `${mark('pass')} ${workspace.title}: all ${workspace.items.length} checks pass`
          : `${mark(failing > 0 ? 'fail' : 'warn')} ${workspace.title}: ${failing > 0 ? `${failing} of ${workspace.items.length} checks fail` : 'nothing fails'}`,
        ...off.flatMap((item) => itemLines(item).map((line) => `    ${line}`)),
      );
    }
  }
  const operatorProblems = report.operator.filter((item) => item.state === 'fail').length;
  const workspaceProblems = report.workspaces.reduce((n, w) => n + w.items.filter((i) => i.state === 'fail').length, 0);
  const problems = operatorProblems + (report.workspacesBlock ? workspaceProblems : 0);
  lines.push(
    '',
    problems > 0
      ? `${problems} problem${problems === 1 ? '' : 's'} block${problems === 1 ? 's' : ''} the setup: fix ${problems === 1 ? 'it' : 'them'} as said, then run npm run -s doctor again.`
      : 'Nothing blocks the setup.',
  );
  if (!report.workspacesBlock && workspaceProblems > 0)
    lines.push(
      workspaceProblems === 1
        ? "The workspaces' 1 problem does not block the deployment: the workspace's settings admins see it in the Setup checklist on App Home."
        : `The workspaces' ${workspaceProblems} problems do not block the deployment: each workspace's settings admins see theirs in the Setup checklist on App Home.`,
    );
  return `${lines.join('\n')}\n`;
}

function itemLines(item: SetupItem): string[] {
  return [`${mark(item.state)} ${item.summary}`, ...(item.fix && item.state !== 'pass' ? [`    -> ${item.fix}`] : [])];
}

function mark(state: SetupItem['state']): string {
  return state === 'pass' ? '✓' : state === 'fail' ? '✗' : '!';
}
