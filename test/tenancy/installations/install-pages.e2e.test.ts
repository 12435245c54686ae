import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { STATE_TTL_SECONDS } from '../../../src/tenancy/installations/oauth-state.js';
import type { AppProcess } from '../../kit/app-process.js';
import { useApp, useFakes } from '../../kit/fakes.js';
import { queryRows } from '../../kit/raw-sql.js';
import type { RunningApp } from '../../kit/running-app.js';
import { TEST_TEAM_ID, TEST_USER_ID } from '../../kit/slack-ids.js';
import { DISTRIBUTION_ENV, TEST_CLIENT_SECRET, TEST_STATE_SECRET, oauthApp } from '../../kit/workspaces.js';
import { CHROMIUM, LAUNCH_ARGS, screenshot } from '../../sandbox/browser-kit.js';

/*
 * "Add to Slack" as an installer's browser goes through it (Debian's Chromium, driven by playwright-core),
 * against the app in distribution mode and the fake Slack's consent screen: the install page, the page of each
 * way an install ends, and what was installed (or not). Every page is checked as a person meets it: its
 * title and heading, a way back to the start, nothing loaded from elsewhere, readable at a phone's width, and
 * no stack trace or secret in it or in the app's log. `npm run screenshots` writes the pictures of the pages
 * to docs/images/install-*.png.
 */

const SHIFT_CLOCK = fileURLToPath(new URL('../../kit/shift-clock.mjs', import.meta.url));
const DESKTOP = { width: 960, height: 800 };
/** The narrowest phone screen in common use, in CSS pixels. */
const PHONE = { width: 320, height: 640 };
const REDIRECT = /\/slack\/oauth_redirect\?/;

describe('Add to Slack in a browser', () => {
  const fakes = useFakes();
  const running = useApp(fakes, 'http', { env: DISTRIBUTION_ENV });
  const app = () => running.app;
  /** The app 11 minutes later: a replica whose clock runs ahead, as clock-skew.e2e.test.ts starts them. */
  let later: AppProcess | undefined;
  /** Its start, begun beside the browser's so that its tests need not wait for it. */
  let laterStart: Promise<AppProcess> | undefined;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Every URL the browser asked for in a test. */
  let requested: string[] = [];

  beforeAll(async () => {
    laterStart = fakes.startProcess('http', {
      env: {
        ...DISTRIBUTION_ENV,
        NODE_OPTIONS: `--import ${SHIFT_CLOCK}`,
        TEST_CLOCK_SHIFT_MS: String((STATE_TTL_SECONDS + 60) * 1000),
      },
    });
    // A failed start fails the tests that use it, where it is awaited.
    void laterStart.catch(() => undefined);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    // One browser window for the file (a new one per test would cost a renderer's start each time): each test
    // starts on a blank page without cookies, as an installer's browser that never went there.
    context = await browser.newContext({ viewport: DESKTOP, deviceScaleFactor: 1 });
    context.on('request', (request) => requested.push(request.url()));
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await (await laterStart?.catch(() => undefined))?.stop();
  });
  beforeEach(async () => {
    fakes.slack.oauthApp = oauthApp(app());
    fakes.slack.nextInstall = { teamId: TEST_TEAM_ID, teamName: 'Acme & Co', userId: TEST_USER_ID };
    await page.goto('about:blank');
    await context.clearCookies();
    await page.setViewportSize(DESKTOP);
    requested = [];
  });
  afterEach(async () => {
    // Only the app's pages and Slack's consent screen: no font, script or picture from anywhere else.
    const origins = new Set([app().baseUrl, later?.baseUrl, new URL(fakes.slack.apiUrl).origin]);
    expect(requested.filter((url) => !origins.has(new URL(url).origin))).toEqual([]);
    for (const logs of [app().logs, later?.logs ?? '']) expect(secretsIn(logs)).toEqual([]);
  });

  /** The secrets of the installation: none may be shown in a page or written to a log. */
  function secretsIn(text: string): string[] {
    const secrets = [
      TEST_CLIENT_SECRET,
      TEST_STATE_SECRET,
      DISTRIBUTION_ENV.SECRETS_KEYS,
      ...fakes.slack.issuedTokens.keys(),
    ];
    return [...secrets.filter((secret) => text.includes(secret)), ...(text.match(/xox[abeprs]-[\w-]+/g) ?? [])];
  }

  async function installationIds(where: RunningApp = app()): Promise<string[]> {
    const rows = await queryRows(where.env.DATABASE_URL ?? '', 'select id from installations order by id');
    return rows.map((r) => String(r.id));
  }

  /** Opens the install page and clicks "Add to Slack"; resolves once the browser is back from Slack. */
  async function addToSlack(from: RunningApp = app()): Promise<void> {
    await page.goto(`${from.baseUrl}/slack/install`);
    await clickAddToSlack();
  }

  async function clickAddToSlack(): Promise<void> {
    await page.getByRole('link', { name: 'Add to Slack' }).click();
    await page.waitForURL(REDIRECT);
  }

  /**
   * The page on screen says `heading` as its title and its one top heading, offers `link` back to the install
   * page (when given), shows no stack trace and no secret, and reads at a phone's width: nothing wider than the
   * screen, and its button whole and big enough to tap.
   */
  async function expectPage(heading: string, link?: string): Promise<void> {
    await expect.poll(() => page.title()).toContain(heading);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByRole('heading', { level: 1 }).allInnerTexts()).toEqual([heading]);
    expect(await page.getByRole('main').count()).toBe(1);
    if (link) expect(await page.getByRole('link', { name: link }).getAttribute('href')).toBe('/slack/install');
    const html = await page.content();
    expect(secretsIn(html)).toEqual([]);
    expect(await page.locator('body').innerText()).not.toMatch(/error|exception|\bat \S+:\d+|\.js\b|\.ts\b/i);

    await page.setViewportSize(PHONE);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    const button = await page.locator('a.button').boundingBox();
    expect(button).not.toBeNull();
    if (button) {
      expect(button.x).toBeGreaterThanOrEqual(0);
      expect(button.x + button.width).toBeLessThanOrEqual(PHONE.width);
      expect(button.height).toBeGreaterThanOrEqual(44);
    }
    const smallestText = await page.evaluate<number>(
      "Math.min(...[...document.querySelectorAll('main p, main li')].map((e) => parseFloat(getComputedStyle(e).fontSize)))",
    );
    expect(smallestText).toBeGreaterThanOrEqual(14);
    await page.setViewportSize(DESKTOP);
  }

  it('installs: the install page, Slack’s consent screen, then the workspace it went to and what to do next', async () => {
    const opened = await page.goto(`${app().baseUrl}/slack/install`);
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()['cache-control']).toBe('no-store');
    expect(opened?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await expectPage('Add Mintlink to your Slack workspace');
    await expect.poll(() => page.getByRole('listitem').allInnerTexts()).toHaveLength(3);
    await screenshot(page, 'install-page');

    const back = page.waitForResponse(REDIRECT);
    await clickAddToSlack();
    expect((await back).status()).toBe(200);
    expect(
      requested.some((url) => url.startsWith(`${fakes.slack.apiUrl.replace(/api\/$/, '')}oauth/v2/authorize?`)),
    ).toBe(true);
    await expectPage('Mintlink is installed');
    const main = page.getByRole('main');
    expect(await main.innerText()).toContain('Mintlink is now installed in Acme & Co.');
    expect(await page.getByRole('heading', { level: 2 }).innerText()).toMatch(/What.s next/);
    const steps = await main.getByRole('listitem').allInnerTexts();
    expect(steps[0]).toContain('Home tab');
    expect(steps[1]).toContain('Connect your Mint account');
    expect(steps[2]).toContain('/mintlink help');
    expect(await page.getByRole('link', { name: 'Open Mintlink in Slack' }).getAttribute('href')).toBe(
      `https://slack.com/app_redirect?app=A0DIST0001&team=${TEST_TEAM_ID}`,
    );
    await screenshot(page, 'install-success');

    expect(await installationIds()).toEqual([`T${TEST_TEAM_ID}`]);
    const [row] = await queryRows(app().env.DATABASE_URL ?? '', 'select installer_id, team_id from installations');
    expect(row).toEqual({ installer_id: TEST_USER_ID, team_id: TEST_TEAM_ID });
  });

  it('a denied install: the page says nothing was installed, and its link starts again', async () => {
    fakes.slack.nextInstall = { teamId: 'T0DENIED01', teamName: 'Denied', userId: TEST_USER_ID, deny: true };
    await addToSlack();
    await expectPage('Installation cancelled', 'Try again');
    expect(await page.getByRole('main').innerText()).toContain('nothing was installed');
    await screenshot(page, 'install-denied');
    expect(await installationIds()).not.toContain('TT0DENIED01');
    expect(fakes.slack.callsTo('oauth.v2.access')).toHaveLength(0);

    await page.getByRole('link', { name: 'Try again' }).click();
    await expectPage('Add Mintlink to your Slack workspace');
  });

  it('a reused state: reloading the page Slack sent back to, or going back and forward to it, installs nothing more', async () => {
    fakes.slack.nextInstall = { teamId: 'T0REUSED01', teamName: 'Reused', userId: TEST_USER_ID };
    await addToSlack();
    await expectPage('Mintlink is installed');
    const callback = page.url();
    await queryRows(app().env.DATABASE_URL ?? '', `delete from installations where id = 'TT0REUSED01'`);

    // The browser replays the redirect: Bolt deleted the state's cookie when it was used.
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(400);
    await expectPage('This installation link no longer works', 'Start again');
    expect(await page.getByRole('main').innerText()).toContain('already used');
    await page.goBack();
    await page.goForward();
    await expectPage('This installation link no longer works', 'Start again');

    // With the state's cookie back (a copy of the browser's, taken before the install): used once is used.
    await context.addCookies([{ name: 'slack-app-oauth-state', value: stateOf(callback), url: app().baseUrl }]);
    expect((await page.goto(callback))?.status()).toBe(400);
    await expectPage('This installation link no longer works', 'Start again');

    expect(fakes.slack.callsTo('oauth.v2.access')).toHaveLength(1);
    expect(await installationIds()).not.toContain('TT0REUSED01');
  });

  it('a forged state, with or without a cookie to match, gets a clear page and installs nothing', async () => {
    const before = await installationIds();
    const forged = signedState({ o: { scopes: ['commands'] }, t: Date.now(), n: 'forged' }, 'not-the-state-secret');
    const callback = `${app().baseUrl}/slack/oauth_redirect?code=1.stolen&state=${forged}`;
    expect((await page.goto(callback))?.status()).toBe(400);
    await expectPage('This installation link is not valid', 'Go to the install page');
    expect(await page.getByRole('main').innerText()).toContain('nothing was installed');

    await context.addCookies([{ name: 'slack-app-oauth-state', value: forged, url: app().baseUrl }]);
    expect((await page.goto(callback))?.status()).toBe(400);
    await expectPage('This installation link is not valid', 'Go to the install page');

    expect(fakes.slack.callsTo('oauth.v2.access')).toHaveLength(0);
    expect(await installationIds()).toEqual(before);
  });

  it('a callback without a state, or without a code, gets a clear page and installs nothing', async () => {
    const before = await installationIds();
    for (const query of ['?code=1.anything', '?state=anything', '']) {
      expect((await page.goto(`${app().baseUrl}/slack/oauth_redirect${query}`))?.status()).toBe(400);
      await expectPage('This installation link is incomplete', 'Start again');
    }
    expect(fakes.slack.callsTo('oauth.v2.access')).toHaveLength(0);
    expect(await installationIds()).toEqual(before);
  });

  it('Slack refusing the code exchange: a page that says to try again later, and nothing installed', async () => {
    fakes.slack.nextInstall = { teamId: 'T0REFUSED1', teamName: 'Refused', userId: TEST_USER_ID };
    fakes.slack.answerNext('oauth.v2.access', { body: { ok: false, error: 'invalid_code' } });
    const back = page.waitForResponse(REDIRECT);
    await addToSlack();
    expect((await back).status()).toBe(502);
    await expectPage('Slack could not finish the installation', 'Try again');
    expect(await installationIds()).not.toContain('TT0REFUSED1');
  });

  describe(`a state older than ${STATE_TTL_SECONDS / 60} minutes`, () => {
    beforeAll(async () => {
      later = await laterStart;
    }, 30_000);
    const laterApp = () => {
      if (!later) throw new Error('the later app is not started');
      return later;
    };

    it('gets a page that says the link expired, and installs nothing', async () => {
      // The install page now; Slack sends the browser back to the app when its clock says 11 minutes later.
      fakes.slack.oauthApp = oauthApp(laterApp());
      fakes.slack.nextInstall = { teamId: 'T0EXPIRE01', teamName: 'Expired', userId: TEST_USER_ID };
      await addToSlack(app());
      await expectPage('This installation link has expired', 'Start again');
      expect(await page.getByRole('main').innerText()).toContain('works for 10 minutes');
      await screenshot(page, 'install-expired');

      // The browser has dropped the state's cookie too by then (it lives as long as the state).
      await page.goto(`${app().baseUrl}/slack/install`);
      await context.clearCookies();
      await clickAddToSlack();
      await expectPage('This installation link has expired', 'Start again');

      expect(fakes.slack.callsTo('oauth.v2.access')).toHaveLength(0);
      expect(await installationIds(laterApp())).toEqual([]);
      expect(await installationIds()).not.toContain('TT0EXPIRE01');
      await page.getByRole('link', { name: 'Start again' }).click();
      await expectPage('Add Mintlink to your Slack workspace');
    });
  });
});

function stateOf(callback: string): string {
  return new URL(callback).searchParams.get('state') ?? '';
}

/** A state shaped like the app's (oauth-state.ts), signed with `secret`. */
function signedState(content: unknown, secret: string): string {
  const body = Buffer.from(JSON.stringify(content)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(`mintlink oauth state ${body}`).digest('base64url')}`;
}
