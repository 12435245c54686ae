import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATA_DIR_MARKER, LOCK_FILE, checkDataDirIsOurs, lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { APPROVALS, APPROVERS, AUDIT_VIEWERS, SANDBOX_QUORUM } from './people.js';
import { holdFreePort, type HeldPort } from './free-port.js';

/*
 * The app itself, as `npm start` runs it: `node <the start script's flags> dist/mintlink.mjs` in a process of
 * its own, configured only through its environment (built here from nothing, so no token of the sandbox's
 * own environment reaches it), with its working directory in the sandbox's data directory (no .env is read).
 * This module is light on purpose: `npm run sandbox` spawns the app before it loads the rest of the sandbox,
 * so the two start side by side.
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

export function bundleExists(): boolean {
  return existsSync(BUNDLE);
}

/** Where everything will listen, and the made-up secrets the app gets: fixed before anything starts. */
export interface AppPlan {
  dataDir: string;
  /** This sandbox's hold on the data directory: released when it stops. */
  lock: DataDirLock;
  /** The app's port: another one when the app finds it taken at start (launchOnAnotherPort). */
  appPort: number;
  slackPort: number;
  mintPort: number;
  /**
   * The ports, held from the plan until each is listened on (the app's until it is launched), so that nothing
   * else on the machine is given one meanwhile: the stand-in and the mock release theirs right before they listen.
   */
  held: { app: HeldPort; slack: HeldPort; mint: HeldPort };
  botToken: string;
  signingSecret: string;
  mintKey: string;
  /** The app's HISTORY_SCAN_ROWS when set (SANDBOX_HISTORY_SCAN_ROWS): small, it shows History's Keep searching. */
  historyScanRows?: number | undefined;
  /** The app's TEST_BULK_PACE_MS when set (by a test only: `npm run sandbox` runs at the app's own pace). */
  bulkPaceMs?: number | undefined;
}

/** What the sandbox's own settings pass on to the app. */
export interface AppSettings {
  historyScanRows?: number | undefined;
  bulkPaceMs?: number | undefined;
}

/**
 * Locks the data directory (SandboxRunningError when another sandbox holds it, and nothing is touched), empties
 * it, picks free loopback ports and makes up the app's secrets.
 */
export async function planApp(dataDir: string, settings: AppSettings = {}): Promise<AppPlan> {
  mkdirSync(dataDir, { recursive: true });
  checkDataDirIsOurs(dataDir, readdirSync(dataDir));
  const lock = lockDataDir(dataDir);
  for (const entry of readdirSync(dataDir))
    if (entry !== LOCK_FILE) rmSync(join(dataDir, entry), { recursive: true, force: true });
  writeFileSync(join(dataDir, DATA_DIR_MARKER), 'The data of npm run sandbox: emptied at each start.\n');
  const [app, slack, mint] = await Promise.all([holdFreePort(), holdFreePort(), holdFreePort()]);
  return {
    dataDir,
    lock,
    appPort: app.port,
    slackPort: slack.port,
    mintPort: mint.port,
    held: { app, slack, mint },
    botToken: `xoxb-sandbox-${randomBytes(12).toString('hex')}`,
    signingSecret: randomBytes(16).toString('hex'),
    mintKey: `sandbox-${randomBytes(12).toString('hex')}`,
    historyScanRows: settings.historyScanRows,
    bulkPaceMs: settings.bulkPaceMs,
  };
}

export interface AppChild {
  pid: number;
  /** Stops the app gracefully (SIGTERM; SIGKILL after 12 s) and resolves when it has exited. */
  stop(): Promise<void>;
  exited: Promise<number | null>;
}

/** Lets go of every port of the plan still held (a start that failed before all of them were listened on). */
export function releasePorts(plan: AppPlan): void {
  for (const held of Object.values(plan.held)) held.release();
}

/**
 * The app found its port taken at start: another process was given it between the plan and the app's listen
 * (the app binds it itself, so the sandbox cannot hold it that long).
 */
export class AppPortTakenError extends Error {}

/**
 * Launches the app again on another free port (held until this launch): after an AppPortTakenError. The page
 * reads `plan.appPort` for each request, so it follows.
 */
export async function launchOnAnotherPort(plan: AppPlan): Promise<Launch> {
  const taken = plan.appPort;
  plan.held.app = await holdFreePort();
  plan.appPort = plan.held.app.port;
  // The failed start's fatal line stays in app.log: this one, after it, says what the sandbox did about it.
  appendFileSync(
    join(plan.dataDir, 'app.log'),
    `${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg: `sandbox: the app's port ${taken} was taken by another program; starting the app again on ${plan.appPort}` })}\n`,
  );
  return launchApp(plan);
}

/** An app process; `started` resolves once it says it has started, and rejects if it exits before. */
export interface Launch {
  child: AppChild;
  started: Promise<void>;
}

export function launchApp(plan: AppPlan): Launch {
  const env = {
    PATH: process.env.PATH ?? '',
    SLACK_BOT_TOKEN: plan.botToken,
    SLACK_SIGNING_SECRET: plan.signingSecret,
    SLACK_API_URL: `http://127.0.0.1:${plan.slackPort}/api/`,
    PORT: String(plan.appPort),
    HOST: '127.0.0.1',
    MINT_API_BASE_URL: `http://127.0.0.1:${plan.mintPort}`,
    MINT_API_KEY: plan.mintKey,
    DATABASE_URL: `file:${plan.dataDir}/mintlink.sqlite`,
    APPROVAL_CHANNEL_ID: APPROVALS.id,
    DELETION_APPROVERS: APPROVERS.join(','),
    DELETION_QUORUM: String(SANDBOX_QUORUM),
    AUDIT_VIEWERS: AUDIT_VIEWERS.join(','),
    // The audit viewer also administers the settings (App Home -> Settings), so that flow can be tried.
    SETTINGS_ADMINS: AUDIT_VIEWERS.join(','),
    LOG_LEVEL: 'info',
    ...(plan.historyScanRows !== undefined ? { HISTORY_SCAN_ROWS: String(plan.historyScanRows) } : {}),
    ...(plan.bulkPaceMs !== undefined ? { TEST_BULK_PACE_MS: String(plan.bulkPaceMs) } : {}),
  };
  plan.held.app.release();
  const child: ChildProcess = spawn(process.execPath, [...startFlags(), BUNDLE], {
    cwd: plan.dataDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(plan.dataDir, 'app.log'), { flags: 'a' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The sandbox must not leave the app running when it is itself cut off.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  void exited.then(() => {
    process.off('exit', orphanGuard);
    log.end();
  });

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
    void exited.then((code) => {
      const message = `the app exited (${code}) before it started:\n${output.slice(-2000)}`;
      reject(output.includes('EADDRINUSE') ? new AppPortTakenError(message) : new Error(message));
    });
  });
  started.catch(() => undefined); // a caller that stops waiting must not leave an unhandled rejection
  return {
    started,
    child: {
      pid: child.pid ?? 0,
      exited,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
        await exited;
        clearTimeout(timer);
      },
    },
  };
}
