import { describe, expect, it } from 'vitest';
import { SetupReports } from '../../src/setup-checklist/setup-reports.js';
import { fail, pass, type SetupItem } from '../../src/setup-checks/setup-items.js';

describe('the setup reports App Home shows', () => {
  it('shares a check under way with Home, but checks again after it when a person asks', async () => {
    let answer: SetupItem[] = [fail('approval-channel', 'not a member', 'Invite the app.')];
    const started: Array<() => void> = [];
    const checks: Promise<SetupItem[]>[] = [];
    const background: Promise<unknown>[] = [];
    const changed: Array<string | undefined> = [];
    const reports = new SetupReports(
      () => {
        const seen = answer; // what Slack said when the check asked
        const check = new Promise<SetupItem[]>((resolve) => started.push(() => resolve(seen)));
        checks.push(check);
        return check;
      },
      (teamId) => changed.push(teamId),
      (work) => background.push(work),
    );
    expect(reports.peek('T1', 'settings v1')).toBeUndefined(); // nothing yet: a check starts in the background
    expect(reports.peek('T1', 'settings v1')).toBeUndefined(); // the same check, not a second
    await settled();
    expect(checks).toHaveLength(1);

    answer = [pass('approval-channel', 'member')]; // fixed while the first check runs
    const asked = reports.recheck('T1', 'settings v1', { fresh: true });
    started.shift()?.();
    await background[0];
    await settled();
    expect(checks).toHaveLength(2); // the person's check started after the first ended
    started.shift()?.();
    expect((await asked).items.map((i) => i.state)).toEqual(['pass']);
    expect(changed).toEqual(['T1', 'T1']); // the checklist appeared, then went away

    expect(reports.peek('T1', 'settings v1')?.items.map((i) => i.state)).toEqual(['pass']);
    await settled();
    expect(checks).toHaveLength(2); // fresh: no check
    reports.peek('T1', 'settings v2'); // the settings changed: checked again
    await settled();
    expect(checks).toHaveLength(3);
  });
});

/** Lets the promise callbacks queued so far run. */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
