import { accessSync, constants, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { DEFAULT_SQLITE_PATH, configHints } from '../config/config-schema.js';
import { fieldOf } from '../../unknown-fields.js';

export interface SqliteFileProblem {
  /** Ends the sentence "DATABASE_URL points to PATH, which ...". */
  reason: string;
  /**
   * True when only the operator can fix it (a directory, not a database, no permission, read-only): the app
   * stops at start. False when the file may become usable by itself (locked by another process, disk full, an
   * I/O error): the app starts, /readyz says why, and it tries again.
   */
  lasting: boolean;
}

/** The SQLite file of DATABASE_URL cannot be used; the message says why in one line, naming the variable. */
export class SqliteFileError extends Error {
  override readonly name = 'SqliteFileError';
  readonly code: string | undefined;

  constructor(
    readonly path: string,
    readonly problem: SqliteFileProblem,
    cause: unknown,
  ) {
    super(`DATABASE_URL points to ${shownPath(path)}, which ${problem.reason}.`, { cause });
    this.code = errorCode(cause);
  }

  /** The message with the hint on what DATABASE_URL may be: what the operator reads when the app stops. */
  get withHint(): string {
    return `${this.message} Hint: ${configHints.DATABASE_URL}`;
  }

  /** "PATH is a directory": for /readyz and the logs, where the variable's name adds nothing. */
  get summary(): string {
    return `${this.path} ${this.problem.reason}`;
  }
}

/**
 * Says why SQLite could not open or write `path`, from the error and a look at the file system (SQLite's own
 * "unable to open database file" does not say which of several reasons it was).
 */
export function sqliteFileProblem(path: string, error: unknown): SqliteFileProblem {
  const code = errorCode(error) ?? '';
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return { reason: `is locked by another process (${code})`, lasting: false };
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC')
    return { reason: 'cannot grow: the disk is full', lasting: false };
  if (code.startsWith('SQLITE_NOTADB')) return { reason: 'is not an SQLite database', lasting: true };
  if (code.startsWith('SQLITE_CORRUPT')) return { reason: `is a damaged SQLite database (${code})`, lasting: true };
  const onDisk = path === ':memory:' ? undefined : fileSystemProblem(path);
  if (onDisk) return { reason: onDisk, lasting: true };
  if (code === 'EROFS') return { reason: 'cannot be written (read-only file system)', lasting: true };
  if (code.startsWith('SQLITE_READONLY')) return { reason: 'cannot be written (read-only)', lasting: true };
  if (code === 'EACCES' || code === 'EPERM') return { reason: 'cannot be opened (permission denied)', lasting: true };
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO')
    return { reason: `cannot be read or written (input/output error, ${code})`, lasting: false };
  const message = error instanceof Error ? error.message : String(error);
  return { reason: `cannot be opened (${code ? `${code}: ` : ''}${message})`, lasting: true };
}

/** What is wrong with the path itself, as this process sees it; undefined when nothing is. */
function fileSystemProblem(path: string): string | undefined {
  const found = stat(path);
  if (found.ok) {
    if (found.stats.isDirectory()) return 'is a directory';
    if (!found.stats.isFile()) return 'is not a regular file';
    if (access(path, constants.R_OK)) return 'cannot be read (permission denied)';
    const write = access(path, constants.W_OK);
    if (write === 'EROFS') return 'cannot be written (read-only file system)';
    if (write) return 'cannot be written (read-only: permission denied)';
    const directory = dirname(path);
    const create = access(directory, constants.W_OK | constants.X_OK);
    if (create === 'EROFS') return 'cannot be written (read-only file system)';
    if (create)
      return `cannot be written (read-only: permission denied to create files in ${directory}, where SQLite keeps its journal)`;
    return undefined;
  }
  if (found.code === 'ENOTDIR') {
    const file = ancestors(path).find((ancestor) => {
      const above = stat(ancestor);
      return above.ok && !above.stats.isDirectory();
    });
    return `is under ${file ?? 'a file'}, which is a file, not a directory`;
  }
  if (found.code === 'EACCES') {
    const closed = ancestors(path)
      .reverse()
      .find((ancestor) => access(ancestor, constants.X_OK));
    return `cannot be reached (permission denied${closed ? ` on ${closed}` : ''})`;
  }
  if (found.code === 'ENOENT') {
    const parent = ancestors(path).find((ancestor) => stat(ancestor).ok);
    if (!parent) return undefined;
    const create = access(parent, constants.W_OK | constants.X_OK);
    if (create === 'EROFS') return `cannot be created (${parent} is on a read-only file system)`;
    if (create) return `cannot be created (permission denied in ${parent})`;
  }
  return undefined;
}

/** The directories above `path`, nearest first. */
function ancestors(path: string): string[] {
  const list: string[] = [];
  for (let current = dirname(resolve(path)); ; current = dirname(current)) {
    list.push(current);
    if (dirname(current) === current) return list;
  }
}

function stat(path: string) {
  try {
    return { ok: true as const, stats: statSync(path) };
  } catch (error) {
    return { ok: false as const, code: errorCode(error) };
  }
}

/** The error code of access(2), or undefined when allowed. */
function access(path: string, mode: number): string | undefined {
  try {
    accessSync(path, mode);
    return undefined;
  } catch (error) {
    return errorCode(error) ?? 'EACCES';
  }
}

function errorCode(error: unknown): string | undefined {
  const code = fieldOf(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

/** The path as configured, with where it lands when it is relative, and a note when it is the default one. */
function shownPath(path: string): string {
  const notes = [
    ...(isAbsolute(path) || path === ':memory:' ? [] : [resolve(path)]),
    ...(path === DEFAULT_SQLITE_PATH ? ['the default while DATABASE_URL is unset'] : []),
  ];
  return notes.length > 0 ? `${path} (${notes.join('; ')})` : path;
}
