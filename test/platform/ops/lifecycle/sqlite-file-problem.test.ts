import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteFileError, sqliteFileProblem } from '../../../../src/platform/ops/lifecycle/sqlite-file-problem.js';

const sqliteError = (code: string) => Object.assign(new Error(code), { code });
const cantOpen = sqliteError('SQLITE_CANTOPEN');

describe('sqliteFileProblem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mintlink-sqlite-problem-'));

  it('looks at the file system when SQLite only says it cannot open the file', () => {
    mkdirSync(join(dir, 'a-directory'));
    writeFileSync(join(dir, 'a-file'), 'x');
    expect(sqliteFileProblem(join(dir, 'a-directory'), cantOpen)).toEqual({ reason: 'is a directory', lasting: true });
    expect(sqliteFileProblem(join(dir, 'a-file', 'sub', 'db.sqlite'), cantOpen)).toEqual({
      reason: `is under ${join(dir, 'a-file')}, which is a file, not a directory`,
      lasting: true,
    });
    expect(sqliteFileProblem('/dev/null', cantOpen)).toEqual({ reason: 'is not a regular file', lasting: true });
  });

  it('tells apart what lasts (the app stops) from what may pass (the app starts and retries)', () => {
    const path = join(dir, 'db.sqlite');
    expect(sqliteFileProblem(path, sqliteError('SQLITE_NOTADB'))).toEqual({
      reason: 'is not an SQLite database',
      lasting: true,
    });
    expect(sqliteFileProblem(path, sqliteError('SQLITE_CORRUPT'))).toMatchObject({ lasting: true });
    expect(sqliteFileProblem(path, sqliteError('SQLITE_READONLY'))).toEqual({
      reason: 'cannot be written (read-only)',
      lasting: true,
    });
    expect(sqliteFileProblem(path, sqliteError('EACCES'))).toEqual({
      reason: 'cannot be opened (permission denied)',
      lasting: true,
    });
    expect(sqliteFileProblem(path, sqliteError('SQLITE_BUSY'))).toEqual({
      reason: 'is locked by another process (SQLITE_BUSY)',
      lasting: false,
    });
    expect(sqliteFileProblem(path, sqliteError('SQLITE_FULL'))).toMatchObject({ lasting: false });
    expect(sqliteFileProblem(path, sqliteError('SQLITE_IOERR_WRITE'))).toMatchObject({ lasting: false });
  });

  it('makes one line naming DATABASE_URL and the path, with where a relative path lands', () => {
    const absolute = new SqliteFileError('/srv/x.sqlite', { reason: 'is a directory', lasting: true }, cantOpen);
    expect(absolute.message).toBe('DATABASE_URL points to /srv/x.sqlite, which is a directory.');
    expect(absolute.withHint).toMatch(/^DATABASE_URL points to \/srv\/x.sqlite, which is a directory\. Hint: /);
    expect(absolute.withHint).not.toContain('\n');
    expect(absolute.code).toBe('SQLITE_CANTOPEN');
    const relative = new SqliteFileError('db/x.sqlite', { reason: 'is a directory', lasting: true }, cantOpen);
    expect(relative.message).toBe(
      `DATABASE_URL points to db/x.sqlite (${resolve('db/x.sqlite')}), which is a directory.`,
    );
    const byDefault = new SqliteFileError(
      'data/mintlink.sqlite',
      { reason: 'is a directory', lasting: true },
      cantOpen,
    );
    expect(byDefault.message).toContain('the default while DATABASE_URL is unset');
  });
});
