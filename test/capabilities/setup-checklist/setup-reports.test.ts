import { describe, expect, it } from 'vitest';
import { SetupReports } from '../../../src/capabilities/setup-checklist/setup-reports.js';
import { fail, pass, type SetupItem } from '../../../src/tenancy/setup-checks/setup-items.js';

describe('the setup reports App Home shows', () => {
  it('shares a check under way with Home, and checks again when the settings change', async () => {
    const { reports, checks, finish } = harness();
    expect(reports.peek('T1', 'settings v1')).toBeUndefined(); // nothing yet: a check starts in the background
    expect(reports.peek('T1', 'settings v1')).toBeUndefined(); // the same check, not a second
    expect(checks()).toBe(1);
    finish([pass('approval-channel', 'member')]);
    await settled();
    expect(reports.peek('T1', 'settings v1')?.items.map((i) => i.state)).toEqual(['pass']);
    expect(checks()).toBe(1); // fresh: no check
    reports.peek('T1', 'settings v2'); // the settings changed: checked again
    expect(checks()).toBe(2);
  });

  it("starts a fresh check on a press right after Home's own background check", async () => {
    const { reports, checks, finish } = harness();
    reports.peek('T1', 'v1');
    finish([fail('approval-channel', 'not a member', 'Invite the app.')]);
    await settled();
    expect(reports.press('T1', 'v1').kind).toBe('started'); // the person may just have fixed it
    expect(checks()).toBe(2);
  });

  it('joins presses to the check under way, and starts a fresh one at most once per cooldown', async () => {
    const { reports, checks, finish, clock } = harness();
    const presses = Array.from({ length: 20 }, () => reports.press('T1', 'v1'));
    expect(checks()).toBe(1); // 20 presses at once: one check
    expect(presses.map((p) => p.kind)).toEqual(['started', ...Array<string>(19).fill('joined')]);
    expect(reports.checking('T1')).toBe(true);
    finish([fail('approval-channel', 'not a member', 'Invite the app.')]);
    for (const press of presses) if (press.kind !== 'too-soon') expect((await press.done).asked).toBe(true);
    expect(reports.checking('T1')).toBe(false);

    clock.now += 29_000;
    const soon = reports.press('T1', 'v1');
    expect(soon).toMatchObject({ kind: 'too-soon', againInMs: 1_000 });
    expect(checks()).toBe(1);
    expect(reports.press('T2', 'v1').kind).toBe('started'); // per workspace
    expect(reports.press('T1', 'v2').kind).toBe('started'); // the settings changed: not too soon
    clock.now += 1_000;
    finish([pass('approval-channel', 'member')]);
    finish([pass('approval-channel', 'member')]);
    await settled();
    expect(reports.press('T2', 'v1').kind).toBe('too-soon');
    clock.now += 30_000;
    expect(reports.press('T2', 'v1').kind).toBe('started');
    expect(checks()).toBe(4);
  });
});

function harness() {
  const started: Array<(items: SetupItem[]) => void> = [];
  const clock = { now: 1_000_000 };
  const reports = new SetupReports(
    () => new Promise<SetupItem[]>((resolve) => started.push(resolve)),
    () => undefined,
    () => undefined,
    { now: () => clock.now },
  );
  let count = 0;
  return {
    reports,
    clock,
    checks: () => count + started.length,
    finish: (items: SetupItem[]) => {
      count += 1;
      started.shift()?.(items);
    },
  };
}

/** Lets the promise callbacks queued so far run. */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
