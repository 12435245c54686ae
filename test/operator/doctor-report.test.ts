import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/operator/doctor-command.js';
import { fail, pass } from '../../src/tenancy/setup-checks/setup-items.js';

describe("the doctor's report in distribution mode", () => {
  const report = {
    heading: 'distribution mode, HTTP mode',
    operator: [pass('configuration', 'Configuration: every variable the app needs is set')],
    workspaces: [],
    workspacesBlock: false,
  };

  it('gives the install page at PUBLIC_URL, to send installers to', () => {
    const out = formatReport({ ...report, installUrl: 'https://mintlink.example.com/slack/install' });
    expect(out).toContain(
      'Installed workspaces: 0 (none yet); installers add the app at https://mintlink.example.com/slack/install',
    );
  });

  it('says the count is not known when the database could not be read', () => {
    const unread = fail('database', 'Database: not reachable', 'Fix DATABASE_URL.');
    expect(formatReport({ ...report, operator: [...report.operator, unread] })).toContain(
      'Installed workspaces: not known (the database could not be read)',
    );
  });

  it('names the path under PUBLIC_URL when PUBLIC_URL is not set', () => {
    expect(formatReport(report)).toContain(
      'Installed workspaces: 0 (none yet); installers add the app at /slack/install of PUBLIC_URL',
    );
  });
});
