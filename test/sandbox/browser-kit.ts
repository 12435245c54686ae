import { afterAll, afterEach, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/src/sandbox.js';
import { PEOPLE } from '../../sandbox/src/people.js';

/*
 * One sandbox and one Chromium per test file (Debian's chromium, driven by playwright-core), and the
 * gestures a person makes on the page. `npm run screenshots` sets SCREENSHOTS_DIR=docs/images: the tests then
 * write the README's pictures there; otherwise they go to a folder of the test run's temporary directory (still
 * taken, so a broken screenshot step fails here too).
 */

export const CHROMIUM = '/usr/bin/chromium';
/** Chromium's flags on this machine: headless, as root, and no calls home (the network is closed). */
export const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface BrowserSandbox {
  sandbox: Sandbox;
  browser: Browser;
  page: Page;
  stop(): Promise<void>;
}

/** The browser's own settings: `timezoneId`, the time zone the page's clock and dates are in (the machine's if not given). */
export interface BrowserOptions {
  timezoneId?: string;
}

export async function openSandbox(
  options: Partial<SandboxOptions> = {},
  browserOptions: BrowserOptions = {},
): Promise<BrowserSandbox> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mintlink-sandbox-'));
  // Chromium starts while the sandbox does: each mostly waits on processes of its own. One failing stops the other.
  const launching = chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  void launching.catch(() => undefined); // its failure is thrown below, once the sandbox is up
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({ port: 0, host: '127.0.0.1', dataDir, ...options });
  } catch (error) {
    await launching.then((browser) => browser.close()).catch(() => undefined);
    throw error;
  }
  const browser = await launching.catch(async (error: unknown) => {
    await sandbox.stop();
    throw error;
  });
  const page = await browser.newPage({
    viewport: { width: 1280, height: 820 },
    deviceScaleFactor: 1,
    ...(browserOptions.timezoneId ? { timezoneId: browserOptions.timezoneId } : {}),
  });
  page.setDefaultTimeout(10_000);
  await page.goto(sandbox.url);
  await page.waitForSelector('body[data-ready]');
  return {
    sandbox,
    browser,
    page,
    stop: async () => {
      await browser.close().catch(() => undefined);
      await sandbox.stop();
    },
  };
}

export const person = (first: string) => {
  const found = PEOPLE.find((p) => p.name.startsWith(first));
  if (!found) throw new Error(`nobody called ${first}`);
  return found;
};

/**
 * One sandbox and one browser for the tests of a file: opened before them, stopped after them, and no modal
 * left open by a failed test over the next one.
 */
export function useBrowserSandbox(
  options: Partial<SandboxOptions> = {},
  browserOptions: BrowserOptions = {},
): { readonly sandbox: BrowserSandbox } {
  let opened: BrowserSandbox | undefined;
  beforeAll(async () => {
    opened = await openSandbox(options, browserOptions);
  }, 60_000);
  afterEach(async () => {
    if (opened) await closeModals(opened.page);
  });
  afterAll(async () => {
    await opened?.stop();
  });
  return {
    get sandbox() {
      if (!opened) throw new Error('the sandbox is not open yet');
      return opened;
    },
  };
}

/** Switches the person the page acts as (the sidebar's switcher). */
export async function actAs(page: Page, first: string): Promise<void> {
  await page.selectOption('#who', person(first).id);
  await page.locator('#me', { hasText: person(first).name }).waitFor();
}

export async function openChannel(page: Page, name: string): Promise<void> {
  await page.locator('#channel-list button', { hasText: name }).click();
  await page.locator('#main-header h1', { hasText: `# ${name}` }).waitFor();
}

export async function openApp(page: Page, tab: 'Home' | 'Messages' | 'About' = 'Home'): Promise<void> {
  await page.locator('#app-list button').click();
  if (tab !== 'Home') await page.getByRole('tab', { name: tab }).click();
  await page
    .locator('#content')
    .and(page.locator(`[data-place="app-${tab.toLowerCase()}"]`))
    .waitFor();
}

/** Types in the composer and sends (Enter), as a person does. */
export async function send(page: Page, text: string): Promise<void> {
  await page.fill('#composer-text', text);
  await page.press('#composer-text', 'Enter');
}

/** The modal on top of the stack, once it shows `title`. */
export async function modal(page: Page, title: string | RegExp): Promise<Locator> {
  const top = page.locator('.modal');
  await top.locator('header h2', { hasText: title }).waitFor();
  return top;
}

/**
 * Closes whatever modal is open (× of each view on the stack, top first), and waits until none is drawn. After
 * each ×, it waits for the page to take that view away (the next one of the stack, or none, drawn instead).
 */
export async function closeModals(page: Page): Promise<void> {
  for (let i = 0; i < 4; i += 1) {
    const viewId = await page.evaluate<string | null>("document.querySelector('.modal')?.dataset.viewId ?? null");
    if (viewId === null) break;
    const view = page.locator(`.modal[data-view-id="${viewId}"]`);
    // It may be going away already (a close sent a moment ago): then there is nothing to click, and its going ends
    // the wait. On a loaded machine, with the page drawn again at each progress update, a click can take seconds.
    await Promise.race([
      view
        .locator('header .close')
        .click({ timeout: 10_000 })
        .catch(() => undefined),
      view.waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined),
    ]);
    await view.waitFor({ state: 'detached' });
  }
  await page.locator('.modal').waitFor({ state: 'detached' });
}

export async function submitModal(page: Page): Promise<void> {
  await page.locator('.modal footer .submit').click();
}

/** The last message of the conversation on screen that contains `text`. */
export function message(page: Page, text: string | RegExp): Locator {
  return page.locator('#content .message', { hasText: text }).last();
}

/** Sets a Slack datetimepicker (its date and its time inputs) to a local date and time. */
export async function setDateTime(field: Locator, date: string, time: string): Promise<void> {
  await field.locator('input[type=date]').fill(date);
  await field.locator('input[type=time]').fill(time);
}

export function inputBlock(scope: Locator, label: string): Locator {
  return scope.locator('.bk-input-block', { has: scope.page().locator('.bk-label', { hasText: label }) });
}

let shotsDir: string | undefined;

/**
 * Where the pictures go: SCREENSHOTS_DIR, or a folder made at the first picture in the temporary directory of the
 * time (the test run's own, which the run removes: test/global-setup.ts), never a fixed folder left in /tmp.
 */
function screenshotsDir(): string {
  if (shotsDir) return shotsDir;
  const configured = process.env.SCREENSHOTS_DIR;
  if (configured) mkdirSync(configured, { recursive: true });
  shotsDir = configured ?? mkdtempSync(join(tmpdir(), 'mintlink-sandbox-shots-'));
  return shotsDir;
}

/** A picture of the page as it is now, for the README (docs/images with `npm run screenshots`). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate('document.fonts.ready');
  await page.screenshot({ path: join(screenshotsDir(), `${name}.png`) });
}

/** Resolves once `check` holds for what the mock Mint service received (it runs in this process). */
export async function until<T>(check: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
