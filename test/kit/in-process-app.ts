import { Writable } from 'node:stream';
import { configSecrets } from '../../src/platform/ops/config/config.js';
import { loadConfig } from '../../src/platform/ops/config/load-config.js';
import { createLogger } from '../../src/platform/ops/telemetry/create-logger.js';
import { createSecretScrubber } from '../../src/platform/ops/telemetry/secret-scrubber.js';
import { startMintlink, type RunningMintlink } from '../../src/start-mintlink.js';
import type { FakeSlack } from './fake-slack.js';
import { TEST_PROCESS_SQLITE_TURNS } from './store-engines.js';
import { appSetting, RunningApp, type AppOptions } from './running-app.js';

/**
 * The real app started in the test's own process (start-mintlink.ts, what main() runs), on a spare port, with
 * the same environment a process would get: Bolt's own receivers, real HTTP or the fake Socket Mode
 * connection, a real database. Its log lines are kept for the checks. What only a process has (.env files,
 * signals, exit codes, memory, tracing) is tested with AppProcess.
 */
export class InProcessApp extends RunningApp {
  private ended = false;
  private readonly exited: Promise<number>;
  private markExited: (code: number) => void = () => undefined;
  private running: RunningMintlink | undefined;

  private constructor(mode: 'http' | 'socket', port: number, env: Record<string, string>, slack: FakeSlack) {
    super(mode, port, env, slack);
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  static async start(options: AppOptions): Promise<InProcessApp> {
    if (options.files) throw new Error('files such as .env are read by main(): start an AppProcess for that');
    const { port, env } = await appSetting(options);
    const app = new InProcessApp(options.mode, port, env, options.slack);
    const loaded = loadConfig(env);
    if (!loaded.ok) {
      app.end(1, loaded.message);
      if (options.expectExit) return app;
      throw new Error(loaded.message);
    }
    const scrub = createSecretScrubber(configSecrets(loaded.config));
    const logs = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        app.output += chunk.toString('utf8');
        done();
      },
    });
    const logger = createLogger({ level: loaded.config.logLevel, scrub, pretty: false, destination: logs });
    const outcome = await startMintlink(loaded.config, logger, scrub, {
      sqliteTurns: TEST_PROCESS_SQLITE_TURNS,
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
      ...(options.migrationRetryFirstWaitMs === undefined
        ? {}
        : { migrationRetryFirstWaitMs: options.migrationRetryFirstWaitMs }),
    });
    if (!outcome.ok) {
      logger.fatal(outcome.reason);
      app.end(1);
      if (options.expectExit) return app;
      throw new Error(`the app did not start: ${outcome.reason}`);
    }
    app.running = outcome.app;
    logger.info({ mode: options.mode, port }, 'mintlink started in-process');
    if (options.mode === 'socket') await options.slack.socketMode.waitForConnection();
    return app;
  }

  protected get hasEnded(): boolean {
    return this.ended;
  }

  /** Stops the app as main() does on a signal, and resolves with the exit code main() would give (0). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.ended) {
      await this.running?.stop({ signal });
      this.end(0);
    }
    return this.exited;
  }

  get exitCode(): Promise<number | null> {
    return this.exited;
  }

  private end(code: number, message?: string): void {
    if (message) this.output += `${message}\n`;
    this.ended = true;
    this.markExited(code);
  }
}
