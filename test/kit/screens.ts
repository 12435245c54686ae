/*
 * Golden screens: what a person sees (rendered to text by test/kit/screen-text.ts) kept in test/screens/ as
 * reviewed files, one per surface and state, so that any change to what people see is a diff someone reads.
 *
 *   await expectScreen('links/link-form--empty', modalText(view));
 *   await expectScreen('links/link-form--errors', modalScreen(slack, view.id)); // with its inline errors
 *   await expectScreen('deletions/request--approved', messageText(slack.message(channel, ts), { viewer: BEN }));
 *
 * - Names are `<capability>/<surface>--<state>` (lowercase words joined by `-`); the file is
 *   test/screens/<name>.txt. A new golden is written on a developer's run; review it as the person who sees it.
 * - `npm test` never writes goldens when CI is set (vitest's snapshot mode is then "none"): a missing or
 *   changed golden fails the test. Locally a changed one fails too; `npx vitest run … -u` rewrites it (read the
 *   diff before committing).
 * - A golden no test produces any more fails the run (test/kit/obsolete-screens-reporter.ts), when the run
 *   included every test that writes goldens: delete the file if its surface is gone.
 *
 * Stable across runs and machines (the text must not depend on when or where it ran):
 * - The renderer replaces generated ids by numbered placeholders (`DR-‹1›`, `lnk_‹1›`, `‹uuid 1›`), loopback
 *   ports by `‹port›`, Slack timestamps by `‹ts›` (see `stabilize` in screen-text.ts). The same value keeps its
 *   number within one screen, so "the same id twice" still shows.
 * - Dates within a year of now (expiry times, "created at", a date a test types as now + 2 days) are shown as
 *   if now were SCREEN_NOW (Tuesday 2030-01-15 09:30 UTC), their distance from now kept and rounded to 5
 *   minutes, in the viewer's time zone: "Expires tomorrow at 10:30 AM" stays so whenever the test runs. A test
 *   that types a fixed date types one far from now (e.g. in 2099), or one relative to now; a fixed date in the app's
 *   own copy (an example date) must be more than a year away to stay as written.
 * - Each viewer has a fixed time zone (sandbox/src/people.ts): Alice Europe/Paris, Ben America/New_York,
 *   Chloé Europe/Paris, Dan Asia/Tokyo, Eve UTC. Dates are formatted from numbers, not locale strings, so
 *   that ICU versions agree.
 * - Anything else volatile (a port in a URL the test builds, a random name) is the test's to fix: give it a
 *   fixed value, or replace it before calling expectScreen.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FakeSlack } from './fake-slack.js';
import { modalText, type ScreenOptions } from './screen-text.js';

/** Where goldens live: test/screens/ (another folder only for the kit's own tests of this file). */
export function screensDir(): string {
  return process.env.MINTLINK_SCREENS_DIR ?? new URL('../screens/', import.meta.url).pathname;
}

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*--[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The screen `text` must be the golden `name` (written when missing, except under CI). */
export async function expectScreen(name: string, text: string): Promise<void> {
  if (!NAME.test(name)) throw new Error(`a golden is named <capability>/<surface>--<state> in lowercase: "${name}"`);
  const produced = process.env.MINTLINK_SCREENS_PRODUCED;
  if (produced) appendFileSync(produced, `${name}\n`);
  await expect(text).toMatchFileSnapshot(join(screensDir(), `${name}.txt`));
}

/** Modal `viewId` as its person sees it now in the fake Slack: its latest view and the inline errors under it. */
export function modalScreen(slack: FakeSlack, viewId: string, options: ScreenOptions = {}): string {
  const errors = slack.viewErrors.get(viewId);
  return modalText(slack.view(viewId), { ...options, ...(errors ? { errors } : {}) });
}
