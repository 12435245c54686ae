import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FakeSlack } from './fake-slack.js';
import { appSetting, RunningApp, type AppOptions } from './running-app.js';

export { TEST_MINT_API_KEY, TEST_SIGNING_SECRET, type AppOptions, type CommandResult } from './running-app.js';

/** What `npm start` runs after building: its node arguments, read from package.json (one source of truth). */
export function startArguments(): string[] {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  // `[check; ]exec node ...`: the shell npm runs the script in gives its place to node, which then gets the
  // signals; what comes before (the check that dist/ is built) is the shell's.
  const command = packageJson.scripts.start.split(/;\s*(?=exec\s)/).at(-1) ?? '';
  const [node, ...args] = command.replace(/^exec\s+/, '').split(/\s+/);
  if (node !== 'node') throw new Error('the start script must end with `exec node ...`');
  return args.map((arg) => (arg.startsWith('dist/') ? fileURLToPath(new URL(`../../${arg}`, import.meta.url)) : arg));
}

/**
 * The real app (`node dist/mintlink.mjs`, what `npm start` runs) in a child process, configured against the fake
 * Slack and a Mint service, in a temporary working directory. For tests where the process is the point: its
 * start and exit, signals, memory, replicas.
 */
export class AppProcess extends RunningApp {
  private readonly exited: Promise<number | null>;

  private constructor(
    mode: 'http' | 'socket',
    port: number,
    env: Record<string, string>,
    private readonly child: ChildProcess,
    slack: FakeSlack,
  ) {
    super(mode, port, env, slack);
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static async start(options: AppOptions): Promise<AppProcess> {
    if (options.resolveHost) throw new Error('a resolver of its own is given to an app in the test’s process only');
    if (options.migrationRetryFirstWaitMs !== undefined)
      throw new Error('a shorter migration retry is given to an app in the test’s process only');
    const { port, cwd, env } = await appSetting(options);
    const child = spawn(process.execPath, startArguments(), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const app = new AppProcess(options.mode, port, env, child, options.slack);
    // A test run that is cut off (Ctrl-C, a timeout) must not leave app processes behind.
    const orphanGuard = () => child.kill('SIGKILL');
    process.once('exit', orphanGuard);
    child.once('exit', () => process.off('exit', orphanGuard));
    if (options.expectExit) {
      await app.exited;
      return app;
    }
    try {
      // About 0.5 s on a quiet machine; a loaded one (three replicas starting beside other test files) took over 15 s.
      await app.waitForLog((line) => line.msg?.startsWith('mintlink started') === true, 30_000);
      if (options.mode === 'socket') await options.slack.socketMode.waitForConnection();
    } catch (error) {
      // A start that failed the test returns no app for the test to stop: it is stopped here, or it outlives the run
      // (vitest ends its workers without their exit handlers).
      child.kill('SIGKILL');
      throw error;
    }
    return app;
  }

  /** Resident memory of the app process now, in MB (Linux). */
  get rssMb(): number {
    return this.statusMb('VmRSS');
  }

  /** The most resident memory the app process has had since it started, in MB (Linux: its high-water mark). */
  get peakRssMb(): number {
    return this.statusMb('VmHWM');
  }

  private statusMb(field: 'VmRSS' | 'VmHWM'): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  }

  protected get hasEnded(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Sends a signal and resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.hasEnded) this.child.kill(signal);
    return this.exited;
  }

  get exitCode(): Promise<number | null> {
    return this.exited;
  }
}

/** How a command run with execFile ended: its exit code and output, whether it exited 0 or not. */
export type Ran = { code: number; stdout: string; stderr: string };
export const outcome = (ran: Promise<{ stdout: string; stderr: string }>): Promise<Ran> =>
  ran.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Ran) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
