import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, SandboxRunningError, lockDataDir } from '../../sandbox/src/data-dir-lock.js';

/*
 * The lock a sandbox takes on its data directory, in the test's process: whose lock is stale and taken over,
 * whose is refused. (`npm run sandbox` taking over the lock of a killed sandbox, and refusing a running one,
 * is in sandbox-cli.e2e.test.ts.)
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data directory holding a lock with `holder` in it. */
function lockedBy(holder: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-lock-'));
  dirs.push(dir);
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify(holder));
  return dir;
}

const lockIn = (dir: string): unknown => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));

/** When a process started, as the lock notes it (field 22 of /proc/<pid>/stat). */
function startTimeOf(pid: number): string | undefined {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

describe('the data directory lock of the sandbox', () => {
  /** Another process that runs while the tests do: a holder still there, or a pid a gone holder had. */
  let other: ChildProcess;
  let otherPid: number;
  beforeAll(async () => {
    other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    otherPid = other.pid ?? -1;
  });
  afterAll(async () => {
    const exited = new Promise((resolve) => other.once('exit', resolve));
    other.kill('SIGKILL');
    await exited;
  });

  it('takes over the lock of a process that is gone', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('exit', resolve));
    const dir = lockedBy({ pid: gone.pid, url: 'http://127.0.0.1:1/' });
    const lock = lockDataDir(dir);
    expect(lockIn(dir)).toEqual({ pid: process.pid, started: startTimeOf(process.pid) });
    lock.release();
  });

  it('takes over a lock whose pid is now another process’s (it started at another time)', () => {
    const dir = lockedBy({ pid: otherPid, started: '1', url: 'http://127.0.0.1:1/' });
    const lock = lockDataDir(dir);
    expect(lockIn(dir)).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('refuses the lock of a sandbox still running, with its URL once it has one, and leaves the lock as it was', () => {
    const started = startTimeOf(otherPid);
    const starting = lockedBy({ pid: otherPid, started });
    expect(() => lockDataDir(starting)).toThrow(SandboxRunningError);
    expect(() => lockDataDir(starting)).toThrow(
      `A sandbox is already starting (pid ${otherPid}, data directory ${starting})`,
    );
    const running = lockedBy({ pid: otherPid, started, url: 'http://127.0.0.1:4321/' });
    expect(() => lockDataDir(running)).toThrow(
      `A sandbox is already running: open http://127.0.0.1:4321/ (pid ${otherPid}, data directory ${running})`,
    );
    expect(lockIn(running)).toEqual({ pid: otherPid, started, url: 'http://127.0.0.1:4321/' });
  });

  it('notes the page’s URL in its own lock, and removes only its own lock', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-lock-'));
    dirs.push(dir);
    const lock = lockDataDir(dir);
    lock.noteUrl('http://127.0.0.1:4321/');
    expect(lockIn(dir)).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:4321/' });
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);

    // A lock another process took meanwhile (this one's was taken over) is left to it.
    const taken = lockDataDir(dir);
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: otherPid, started: startTimeOf(otherPid) }));
    taken.noteUrl('http://127.0.0.1:4321/');
    taken.release();
    expect(lockIn(dir)).toEqual({ pid: otherPid, started: startTimeOf(otherPid) });
  });
});
