import { afterAll, beforeAll, beforeEach } from 'vitest';
import { MockMintService } from '../../src/operator/mock-mint-api/mock-mint-service.js';
import { AppProcess } from './app-process.js';
import { FakeSlack } from './fake-slack.js';
import { InProcessApp } from './in-process-app.js';
import { ListenerApp, type ListenerAppOptions } from './listener-app.js';
import { TEST_MINT_API_KEY, type AppOptions, type RunningApp } from './running-app.js';
import type { SlackDriver } from './slack-driver.js';

export interface Fakes {
  readonly slack: FakeSlack;
  readonly mint: MockMintService;
  /** Starts the real app against these fakes, in this process. */
  startApp(mode: 'http' | 'socket', options?: Partial<AppOptions>): Promise<InProcessApp>;
  /** Starts the real app against these fakes as `npm start` does, in a process of its own. */
  startProcess(mode: 'http' | 'socket', options?: Partial<AppOptions>): Promise<AppProcess>;
  /** Starts the real app against these fakes in this process, fed through Bolt's receiver (the fast tier). */
  startListenerApp(options?: Partial<ListenerAppOptions>): Promise<ListenerApp>;
}

/**
 * A fake Slack and a mock Mint service for the tests of one file: started before them, cleared before each
 * test, stopped after them.
 */
export function useFakes(): Fakes {
  let slack: FakeSlack | undefined;
  let mint: MockMintService | undefined;
  beforeAll(async () => {
    slack = await new FakeSlack({ testHooks: true }).start(); // Socket Mode and silent response URLs
    mint = new MockMintService({ apiKey: TEST_MINT_API_KEY });
    await mint.listen();
  });
  afterAll(async () => {
    await mint?.close();
    await slack?.stop();
  });
  beforeEach(() => {
    slack?.reset();
    mint?.reset();
  });
  const fakes: Fakes = {
    get slack() {
      if (!slack) throw new Error('fakes are not started yet (use them inside tests or hooks)');
      return slack;
    },
    get mint() {
      if (!mint) throw new Error('fakes are not started yet (use them inside tests or hooks)');
      return mint;
    },
    startApp: (mode, options = {}) =>
      InProcessApp.start({ mode, slack: fakes.slack, mintUrl: fakes.mint.url, ...options }),
    startProcess: (mode, options = {}) =>
      AppProcess.start({ mode, slack: fakes.slack, mintUrl: fakes.mint.url, ...options }),
    startListenerApp: (options = {}) => ListenerApp.start({ slack: fakes.slack, mintUrl: fakes.mint.url, ...options }),
  };
  return fakes;
}

/** The real app in `mode` (in this process) for the tests of one describe block, stopped after them. */
export function useApp(
  fakes: Fakes,
  mode: 'http' | 'socket',
  options: Partial<AppOptions> = {},
): { readonly app: RunningApp } {
  return useRunning(() => fakes.startApp(mode, options));
}

/**
 * The real app for the tests of one describe block in the fast tier (test/kit/listener-app.ts): in this
 * process, Slack's requests handed to Bolt's receiver, an in-memory database; stopped after them.
 */
export function useListenerApp(fakes: Fakes, options: Partial<ListenerAppOptions> = {}): { readonly app: ListenerApp } {
  return useRunning(() => fakes.startListenerApp(options));
}

/** The same, as a process of its own: for tests of what only a process has (its memory, signals). */
export function useAppProcess(
  fakes: Fakes,
  mode: 'http' | 'socket',
  options: Partial<AppOptions> = {},
): { readonly app: AppProcess } {
  return useRunning(() => fakes.startProcess(mode, options));
}

function useRunning<A extends SlackDriver>(start: () => Promise<A>): { readonly app: A } {
  let app: A | undefined;
  beforeAll(async () => {
    app = await start();
  });
  afterAll(async () => {
    await app?.stop();
  });
  return {
    get app() {
      if (!app) throw new Error('the app is not started yet');
      return app;
    },
  };
}
