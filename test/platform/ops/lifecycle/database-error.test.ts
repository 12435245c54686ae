import { describe, expect, it } from 'vitest';
import {
  describeDatabaseError,
  describePostgresError,
  isDatabaseError,
  postgresTarget,
} from '../../../../src/platform/ops/lifecycle/database-error.js';
import { SqliteFileError } from '../../../../src/platform/ops/lifecycle/sqlite-file-problem.js';

const URL_WITH_PASSWORD = 'postgres://app:pw-SECRET-77@db.internal:6543/mint';
const postgres = { engine: 'postgres' as const, url: URL_WITH_PASSWORD };

/** An error shaped like the ones node-postgres and Node.js give (a code, and for sockets an address). */
const failure = (code: string, message = `failure ${code}`, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { code, ...fields });

describe('describeDatabaseError (PostgreSQL)', () => {
  it.each([
    [
      failure('28P01', 'password authentication failed for user "app"'),
      'authentication failed for user "app" (28P01: wrong password)',
    ],
    [
      failure('28000', 'no pg_hba.conf entry for host "10.0.0.9", user "app", database "mint", no encryption'),
      'user "app" may not connect to database "mint" (28000: no pg_hba.conf entry for host "10.0.0.9", user "app", database "mint", no encryption)',
    ],
    [failure('3D000', 'database "mint" does not exist'), 'database "mint" does not exist on db.internal:6543 (3D000)'],
    [
      failure('42501', 'permission denied for schema public'),
      'user "app" lacks a privilege (42501: permission denied for schema public)',
    ],
    [
      failure('53300', 'sorry, too many clients already'),
      'the server at db.internal:6543 has no connection slots left (53300)',
    ],
    [
      failure('57P03', 'the database system is starting up'),
      'the server at db.internal:6543 is starting up or shutting down (57P03)',
    ],
    [
      failure('57P01', 'terminating connection due to administrator command'),
      'the server at db.internal:6543 is shutting down (57P01)',
    ],
    [
      failure('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:6543', { address: '10.0.0.5', port: 6543 }),
      'nothing listens at db.internal:6543 (ECONNREFUSED)',
    ],
    [failure('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal'), 'host "db.internal" not found (ENOTFOUND)'],
    [
      failure('EAI_AGAIN', 'getaddrinfo EAI_AGAIN db.internal'),
      'host "db.internal" could not be looked up now (EAI_AGAIN)',
    ],
    [failure('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.5:6543'), 'no answer from db.internal:6543 (ETIMEDOUT)'],
    [failure('EHOSTUNREACH', 'connect EHOSTUNREACH'), 'db.internal:6543 cannot be reached from here (EHOSTUNREACH)'],
    [failure('ECONNRESET', 'read ECONNRESET'), 'the connection to db.internal:6543 was cut (ECONNRESET)'],
    [
      failure('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'),
      'the TLS certificate of db.internal:6543 is not trusted (SELF_SIGNED_CERT_IN_CHAIN)',
    ],
    [new Error('no answer within 1500 ms'), 'no answer from db.internal:6543 within 1500 ms'],
    [
      new Error('timeout exceeded when trying to connect'),
      'no answer from db.internal:6543 within the connection timeout',
    ],
    [
      new Error('Connection terminated due to connection timeout'),
      'no answer from db.internal:6543 within the connection timeout',
    ],
    [new Error('Connection terminated unexpectedly'), 'the connection to db.internal:6543 ended unexpectedly'],
    [
      new Error('The server does not support SSL connections'),
      'the server at db.internal:6543 does not accept TLS (sslmode in DATABASE_URL)',
    ],
    [failure('22P02', 'invalid input syntax for type integer'), 'invalid input syntax for type integer (22P02)'],
    [new Error('something else entirely'), 'something else entirely'],
  ])('%s', (error, expected) => {
    const text = describeDatabaseError(error, postgres);
    expect(text).toBe(expected);
    expect(text).not.toContain('pw-SECRET-77');
  });

  it('reads the first of the errors of an AggregateError (each address of a host tried in turn)', () => {
    const error = new AggregateError([
      failure('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432'),
      failure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
    ]);
    expect(describeDatabaseError(error, { engine: 'postgres', url: 'postgres://localhost/x' })).toBe(
      'nothing listens at localhost:5432 (ECONNREFUSED)',
    );
  });

  it('names the user, host and database as node-postgres picks them, never the password', () => {
    expect(postgresTarget('postgres://us%40er:p%40ss@[::1]:5433/my%20db')).toEqual({
      host: '[::1]',
      port: '5433',
      user: 'us@er',
      database: 'my db',
    });
    expect(postgresTarget('postgres:///mint?host=/var/run/postgresql')).toMatchObject({
      host: '/var/run/postgresql',
      database: 'mint',
    });
    expect(postgresTarget('postgresql://app@db')).toEqual({ host: 'db', port: '5432', user: 'app', database: 'app' });
    const socket = { engine: 'postgres' as const, url: 'postgres:///mint?host=/var/run/postgresql' };
    expect(describeDatabaseError(failure('ECONNREFUSED'), socket)).toBe(
      'nothing listens at /var/run/postgresql (ECONNREFUSED)',
    );
    const nobody = { host: 'db', port: '5432', user: '', database: '' };
    expect(describePostgresError(failure('28P01'), nobody)).toBe(
      'authentication failed for user (none given in DATABASE_URL) (28P01: wrong password)',
    );
    const noPassword = new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string');
    expect(describeDatabaseError(noPassword, postgres)).toBe(
      'the server asks user "app" for a password, and DATABASE_URL has none',
    );
  });
});

describe('describeDatabaseError (SQLite)', () => {
  const sqlite = { engine: 'sqlite' as const, path: '/nonexistent-dir-mintlink/db.sqlite' };

  it('says what is wrong with the file', () => {
    expect(describeDatabaseError(failure('SQLITE_BUSY', 'database is locked'), sqlite)).toBe(
      '/nonexistent-dir-mintlink/db.sqlite is locked by another process (SQLITE_BUSY)',
    );
    expect(describeDatabaseError(failure('SQLITE_FULL', 'database or disk is full'), sqlite)).toBe(
      '/nonexistent-dir-mintlink/db.sqlite cannot grow: the disk is full',
    );
    const fileError = new SqliteFileError(sqlite.path, { reason: 'is a directory', lasting: true }, undefined);
    expect(describeDatabaseError(fileError, sqlite)).toBe('/nonexistent-dir-mintlink/db.sqlite is a directory');
  });

  it('keeps the words of an error about a statement rather than the file', () => {
    expect(describeDatabaseError(failure('SQLITE_ERROR', 'no such table: audit_log'), sqlite)).toBe(
      'no such table: audit_log (SQLITE_ERROR)',
    );
    expect(describeDatabaseError(new Error('no answer within 1500 ms'), sqlite)).toBe('no answer within 1500 ms');
  });
});

describe('isDatabaseError', () => {
  const postgres = (code: string) => Object.assign(new Error(`server says ${code}`), { code, severity: 'ERROR' });
  const sqlite = (code: string) => Object.assign(new Error(code), { name: 'SqliteError', code });

  it.each(['08006', '28P01', '3D000', '53300', '57P01', '58030', '40001', '40P01'])(
    'counts PostgreSQL %s (the database away, refusing, or a retryable conflict) as the database',
    (code) => expect(isDatabaseError(postgres(code))).toBe(true),
  );

  it.each(['42703', '23505', '42P01', '22P02'])('counts PostgreSQL %s as a bug, not the database', (code) =>
    expect(isDatabaseError(postgres(code))).toBe(false),
  );

  it('counts SQLite busy or full as the database, a constraint or a syntax error as a bug', () => {
    expect(isDatabaseError(sqlite('SQLITE_BUSY'))).toBe(true);
    expect(isDatabaseError(sqlite('SQLITE_FULL'))).toBe(true);
    expect(isDatabaseError(sqlite('SQLITE_CONSTRAINT_UNIQUE'))).toBe(false);
    expect(isDatabaseError(sqlite('SQLITE_ERROR'))).toBe(false);
  });

  it('counts a refused connection as the database, a plain error as a bug', () => {
    expect(isDatabaseError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseError(new TypeError('x is undefined'))).toBe(false);
  });
});
