import { afterAll, beforeAll, beforeEach } from 'vitest';
import { MockMintService } from '../../src/mock-mint-api/mock-mint-service.js';
import { AppProcess, TEST_MINT_API_KEY, type AppProcessOptions } from './app-process.js';
import { FakeSlack } from './fake-slack.js';

export interface Fakes {
  readonly slack: FakeSlack;
  readonly mint: MockMintService;
  /** Starts the real app against these fakes. */
  startApp(mode: 'http' | 'socket', options?: Partial<AppProcessOptions>): Promise<AppProcess>;
}

/**
 * A fake Slack and a mock Mint service for the tests of one file: started before them, cleared before each
 * test, stopped after them.
 */
export function useFakes(): Fakes {
  let slack: FakeSlack | undefined;
  let mint: MockMintService | undefined;
  beforeAll(async () => {
    slack = await new FakeSlack().start();
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
      AppProcess.start({ mode, slack: fakes.slack, mintUrl: fakes.mint.url, ...options }),
  };
  return fakes;
}

/** The real app in `mode` for the tests of one describe block, stopped after them. */
export function useApp(
  fakes: Fakes,
  mode: 'http' | 'socket',
  options: Partial<AppProcessOptions> = {},
): { readonly app: AppProcess } {
  let app: AppProcess | undefined;
  beforeAll(async () => {
    app = await fakes.startApp(mode, options);
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
