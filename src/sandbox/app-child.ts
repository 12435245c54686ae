import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The app itself, as `npm start` runs it: `node <the start script's flags> dist/mintlink.mjs` in a process of
 * its own, configured only through its environment (built here from nothing, so no token of the sandbox's
 * own environment reaches it), with its working directory in the sandbox's data directory (no .env is read).
 */

const ROOT = new URL('../../', import.meta.url);
const BUNDLE = fileURLToPath(new URL('dist/mintlink.mjs', ROOT));

/** The node flags of `npm start` (package.json's start script), so the app runs as it does in production. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start
    .replace(/^exec\s+/, '')
    .split(/\s+/)
    .filter((arg) => arg.startsWith('--'));
}

export interface AppChild {
  pid: number;
  /** Stops the app gracefully (SIGTERM; SIGKILL after 12 s) and resolves when it has exited. */
  stop(): Promise<void>;
  exited: Promise<number | null>;
}

export function bundleExists(): boolean {
  return existsSync(BUNDLE);
}

export async function startApp(env: Record<string, string>, dataDir: string): Promise<AppChild> {
  const child: ChildProcess = spawn(process.execPath, [...startFlags(), BUNDLE], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(dataDir, 'app.log'));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The sandbox must not leave the app running when it is itself cut off.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  void exited.then(() => process.off('exit', orphanGuard));

  let pending = '';
  let output = '';
  const started = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      const text = chunk.toString('utf8');
      if (output.length < 20_000) output += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      if (lines.some((line) => line.includes('"msg":"mintlink started'))) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) =>
      reject(new Error(`the app exited (${code}) before it started:\n${output.slice(-2000)}`)),
    );
  });
  await started;
  return {
    pid: child.pid ?? 0,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
}
