import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { configVariables } from '../../src/platform/ops/config/config-schema.js';
import { TEST_MINT_API_KEY, TEST_SIGNING_SECRET } from '../kit/app-process.js';
import type { Fakes } from '../kit/fakes.js';
import { formBody, slashCommand } from '../kit/slack-payloads.js';
import { slackSignatureHeaders } from '../kit/slack-signature.js';

export type LogLine = Record<string, unknown> & { msg?: string; level?: string };

/**
 * The app's environment for HTTP mode against the fakes. Every configuration variable not given is set empty
 * (which the app reads as unset), so a developer's `.env` in the package directory cannot leak into the test.
 */
export function httpModeEnv(fakes: Fakes, port: number, databasePath: string): Record<string, string> {
  const env: Record<string, string> = Object.fromEntries(configVariables.map((name) => [name, '']));
  return {
    ...env,
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    TMPDIR: tmpdir(), // the test run's own (test/global-setup.ts)
    npm_config_update_notifier: 'false',
    SLACK_BOT_TOKEN: fakes.slack.botToken,
    SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET,
    SLACK_API_URL: fakes.slack.apiUrl,
    PORT: String(port),
    MINT_API_BASE_URL: fakes.mint.url,
    MINT_API_KEY: TEST_MINT_API_KEY,
    DATABASE_URL: `file:${databasePath}`,
    LOG_LEVEL: 'info',
  };
}

/** The environment of an operator's shell with none of the app's configuration (a developer's .env left out). */
export function bareEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_update_notifier: 'false' };
}

/** `npm run -s <script> -- <args>` in `cwd`, as an operator types it: its exit code and what it wrote. */
export function npmRun(
  cwd: string,
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '-s', script, ...(args.length > 0 ? ['--', ...args] : [])],
      { cwd, env },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * `npm start` in a real terminal: util-linux `script` gives it a pseudo-terminal as stdin, stdout and stderr,
 * as when a person runs it in a shell; what it writes comes back here (with the terminal's \r\n line ends).
 */
export function npmStartInTerminal(cwd: string, env: Record<string, string>): NpmStart {
  return new NpmStart(
    cwd,
    env,
    spawn('script', ['--quiet', '--flush', '--return', '--command', 'npm start', '/dev/null'], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
}

/** `npm start` in `cwd`, as an operator or a process manager runs it. */
export class NpmStart {
  private output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly cwd: string,
    readonly env: Record<string, string>,
    readonly child: ChildProcess = spawn('npm', ['start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }),
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    // A cut-off test run must not leave the app behind: kill it (found through npm) when vitest's worker exits.
    const guard = () => {
      for (const pid of descendants(child.pid ?? -1)) process.kill(pid, 'SIGKILL');
      child.kill('SIGKILL');
    };
    process.once('exit', guard);
    child.once('exit', () => process.off('exit', guard));
  }

  get logs(): string {
    return this.output;
  }

  /** The JSON lines the app wrote (npm's own lines, such as `> mintlink-slack@0.1.0 start`, are left out). */
  get logLines(): LogLine[] {
    return this.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  }

  async waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 15_000): Promise<LogLine> {
    return this.waitFor(() => this.logLines.find((line) => predicate(line)), timeoutMs);
  }

  /** Waits for a line of the output, whatever its format (readable lines included). */
  async waitForLine(predicate: (line: string) => boolean, timeoutMs = 15_000): Promise<string> {
    return this.waitFor(() => this.output.split(/\r?\n/).find((line) => predicate(line)), timeoutMs);
  }

  private async waitFor<T>(find: () => T | undefined, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`npm start ended before the expected log line:\n${this.output}`);
      if (Date.now() > deadline)
        throw new Error(`expected log line did not appear within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Waits for npm to end; fails (after killing what is left) if it does not within `timeoutMs`. */
  async waitForExit(timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`npm start still running after ${timeoutMs} ms:\n${this.output}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The process running the app under npm: `node dist/mintlink.mjs`, found through /proc. */
  appProcess(): { pid: number; ppid: number; cmdline: string } {
    const app = descendants(this.child.pid ?? -1)
      .map((pid) => ({ pid, ppid: parentPid(pid), cmdline: commandLine(pid) }))
      .find((p) => /\bnode\b/.test(p.cmdline) && p.cmdline.includes('dist/mintlink.mjs'));
    if (!app) throw new Error(`no "node dist/mintlink.mjs" under npm (pid ${this.child.pid}):\n${this.output}`);
    return app;
  }
}

/** The parent of `pid` (from /proc/PID/stat; the command name may hold spaces and parentheses). */
export function parentPid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Every living process below `root`, children first. */
export function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parents.set(Number(entry), parentPid(Number(entry)));
    } catch {
      // the process ended while the list was read
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [pid, ppid] of parents) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** Whether a process with this pid still exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a TCP port on loopback can be listened on again (nothing holds it). */
export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `/mintlink help` as Slack sends it in HTTP mode; resolves with the status and the ack. */
export async function signedHelpCommand(fakes: Fakes, port: number): Promise<{ status: number; ack: unknown }> {
  const body = formBody(slashCommand(fakes.slack, 'help'));
  const response = await fetch(`http://127.0.0.1:${port}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...slackSignatureHeaders(body, TEST_SIGNING_SECRET),
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, ack: text ? JSON.parse(text) : undefined };
}
