import { linkSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * One sandbox per data directory: a start empties the directory, so a second start on the directory of a
 * running sandbox would wipe that sandbox's database under it. The first start takes a lock file there (its
 * pid, when its process started, and its page's URL once it listens); a second start finds it, sees the
 * process still running and stops with one line, changing nothing. A lock whose process is gone (the sandbox
 * was killed) is stale and taken over.
 */

export const LOCK_FILE = 'sandbox.lock';

/** Another sandbox holds the data directory: the message is one line saying where it is. */
export class SandboxRunningError extends Error {}

/** The marker a sandbox leaves in its data directory: only a directory with it (or an empty one) is emptied. */
export const DATA_DIR_MARKER = '.mintlink-sandbox';

/** The data directory holds files the sandbox did not make: nothing is touched; the message is one line. */
export class ForeignDataDirError extends Error {}

/**
 * Throws ForeignDataDirError unless `dataDir` is empty (but for a lock) or a sandbox's own (its marker): a start
 * empties it, and SANDBOX_DATA_DIR pointed at `data` or a home directory must not cost anyone their files.
 */
export function checkDataDirIsOurs(dataDir: string, entries: readonly string[]): void {
  const others = entries.filter((entry) => entry !== LOCK_FILE);
  if (others.length === 0 || others.includes(DATA_DIR_MARKER)) return;
  throw new ForeignDataDirError(
    `${dataDir} holds files the sandbox did not make (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}), and a start empties its data directory: set SANDBOX_DATA_DIR to a new or empty directory.`,
  );
}

interface Holder {
  pid: number;
  /** When the process started (Linux: ticks since boot, /proc/<pid>/stat), so a reused pid is not taken for it. */
  started?: string;
  url?: string;
}

export interface DataDirLock {
  /** Notes the page's URL in the lock, for a second start to point at. */
  noteUrl(url: string): void;
  /** Removes the lock (only while it is still this process's). */
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  const mine: Holder = { pid: process.pid, ...startTimeOf(process.pid) };
  for (let attempt = 0; ; attempt += 1) {
    if (create(path, mine)) break;
    const holder = read(path);
    if (holder && isRunning(holder)) {
      const where = holder.url ? `running: open ${holder.url}` : 'starting';
      throw new SandboxRunningError(
        `A sandbox is already ${where} (pid ${holder.pid}, data directory ${dataDir}); stop it first (Ctrl-C in its terminal), or start another one with SANDBOX_DATA_DIR set to another directory.`,
      );
    }
    if (attempt > 0) throw new SandboxRunningError(`Could not take the lock ${path}: remove it if no sandbox runs.`);
    rmSync(path, { force: true }); // stale: its process is gone
  }
  const isMine = () => {
    const holder = read(path);
    return holder?.pid === mine.pid && holder.started === mine.started;
  };
  const release = () => {
    if (isMine()) rmSync(path, { force: true });
  };
  process.once('exit', release);
  return {
    noteUrl: (url) => {
      if (isMine()) writeFileSync(path, JSON.stringify({ ...mine, url }));
    },
    release: () => {
      process.off('exit', release);
      release();
    },
  };
}

/** Creates the lock with its content in one step (a hard link to a file already written): never seen empty. */
function create(path: string, holder: Holder): boolean {
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, JSON.stringify(holder));
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(draft);
  }
}

function read(path: string): Holder | undefined {
  let found: { pid?: unknown; started?: unknown; url?: unknown };
  try {
    found = JSON.parse(readFileSync(path, 'utf8')) as typeof found;
  } catch {
    return undefined; // gone meanwhile, or not a lock this code wrote
  }
  const { pid, started, url } = found ?? {};
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  return {
    pid,
    ...(typeof started === 'string' ? { started } : {}),
    ...(typeof url === 'string' ? { url } : {}),
  };
}

function isRunning(holder: Holder): boolean {
  if (holder.pid === process.pid) return false; // a container's sandbox restarted with the pid it had before
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // no such process
  }
  const now = startTimeOf(holder.pid).started;
  return holder.started === undefined || now === undefined || now === holder.started;
}

/** When a process started (field 22 of /proc/<pid>/stat), where the system says; nothing elsewhere. */
function startTimeOf(pid: number): { started?: string } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
    const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return started ? { started } : {};
  } catch {
    return {};
  }
}
