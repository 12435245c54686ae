import type { StoreLocation } from '../config/config.js';
import { SqliteFileError, sqliteFileProblem } from './sqlite-file-problem.js';
import { fieldOf } from '../../unknown-fields.js';

/** SQLite and system error codes that are about the database file rather than a statement. */
const SQLITE_FILE_CODES = /^(SQLITE_(BUSY|LOCKED|FULL|NOTADB|CORRUPT|READONLY|CANTOPEN|IOERR|PERM)|E[A-Z]+$)/;

/**
 * Why the database cannot be used, in a few words an operator can act on, for /readyz and the logs: who was
 * refused, which database is missing, where nothing listens. Names the user, host, port and database from
 * DATABASE_URL, never its password; the code stays at the end, for searching.
 */
export function describeDatabaseError(error: unknown, location: StoreLocation): string {
  const cause = firstCause(error);
  if (cause instanceof SqliteFileError) return cause.summary;
  if (location.engine === 'sqlite') {
    const code = codeOf(cause);
    if (code && SQLITE_FILE_CODES.test(code))
      return `${location.path} ${sqliteFileProblem(location.path, cause).reason}`;
    return code ? `${messageOf(cause)} (${code})` : messageOf(cause);
  }
  return describePostgresError(cause, postgresTarget(location.url));
}

export interface PostgresTarget {
  host: string;
  port: string;
  /** Empty when neither DATABASE_URL nor the environment (PGUSER, USER) names one. */
  user: string;
  database: string;
}

/** Where DATABASE_URL leads, with the defaults libpq and node-postgres fill in. */
export function postgresTarget(url: string): PostgresTarget {
  const parsed = URL.parse(url) ?? new URL('postgres://');
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const user = decode(parsed.username) || process.env.PGUSER || process.env.USER || '';
  return {
    host: parsed.searchParams.get('host') ?? (decode(parsed.hostname) || 'localhost'),
    port: parsed.port || '5432',
    user,
    database: decode(parsed.pathname.slice(1)) || user,
  };
}

/** The PostgreSQL connection errors seen in practice, by SQLSTATE or Node.js error code. */
export function describePostgresError(error: unknown, target: PostgresTarget): string {
  const code = codeOf(error);
  const message = messageOf(error);
  const at = target.host.startsWith('/') ? target.host : `${target.host}:${target.port}`;
  const user = target.user ? `"${target.user}"` : '(none given in DATABASE_URL)';
  const database = target.database ? `"${target.database}"` : '(none given in DATABASE_URL)';
  switch (code) {
    case '28P01':
      return `authentication failed for user ${user} (28P01: wrong password)`;
    case '28000':
      return `user ${user} may not connect to database ${database} (28000: ${message})`;
    case '3D000':
      return `database ${database} does not exist on ${at} (3D000)`;
    case '42501':
      return `user ${user} lacks a privilege (42501: ${message})`;
    case '53300':
      return `the server at ${at} has no connection slots left (53300)`;
    case '57P03':
      return `the server at ${at} is starting up or shutting down (57P03)`;
    case '57P01':
    case '57P02':
      return `the server at ${at} is shutting down (${code})`;
    case 'ECONNREFUSED':
      return `nothing listens at ${at} (ECONNREFUSED)`;
    case 'ENOTFOUND':
      return `host "${target.host}" not found (ENOTFOUND)`;
    case 'EAI_AGAIN':
      return `host "${target.host}" could not be looked up now (EAI_AGAIN)`;
    case 'ETIMEDOUT':
      return `no answer from ${at} (ETIMEDOUT)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${at} cannot be reached from here (${code})`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `the connection to ${at} was cut (${code})`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_HAS_EXPIRED':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `the TLS certificate of ${at} is not trusted (${code})`;
  }
  const deadline = /^no answer within (\d+) ms$/.exec(message);
  if (deadline) return `no answer from ${at} within ${deadline[1]} ms`;
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message))
    return `no answer from ${at} within the connection timeout`;
  if (/Connection terminated unexpectedly/i.test(message)) return `the connection to ${at} ended unexpectedly`;
  if (/client password must be a string/i.test(message))
    return `the server asks user ${user} for a password, and DATABASE_URL has none`;
  if (/does not support SSL/i.test(message)) return `the server at ${at} does not accept TLS (sslmode in DATABASE_URL)`;
  if (code && /^[0-9A-Z]{5}$/.test(code)) return `${message} (${code})`; // another SQLSTATE: the server's words
  return code ?? message;
}

/** The error that says what happened: the first of an AggregateError (each address tried), else the error. */
function firstCause(error: unknown): unknown {
  if (error instanceof AggregateError && error.errors.length > 0) return firstCause(error.errors[0]);
  return error;
}

function codeOf(error: unknown): string | undefined {
  const code = fieldOf(error, 'code');
  return typeof code === 'string' && code.length > 0 ? code : undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Node.js and SQLite codes of a database that is away or cannot take work now. */
const DATABASE_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_PERM',
]);

/**
 * PostgreSQL's SQLSTATE classes of a server that is away or refuses the connection (08 connection, 28
 * authorization, 3D missing database, 53 resources, 57 operator intervention, 58 system), and the two
 * transaction failures a retry cures (40001 serialization, 40P01 deadlock). Anything else (42703 unknown
 * column, 23505 duplicate key) is a bug in the app, logged with its stack.
 */
const UNAVAILABLE_SQLSTATE = /^(08|28|3D|53|57|58)[0-9A-Z]{3}$|^40001$|^40P01$/;

/**
 * An error that comes from the database being away or refusing (a missing database, an unknown role, a full
 * disk) rather than from a bug. PostgreSQL's are recognised by their shape (a SQLSTATE and a severity), not
 * by their class name: the bundler renames classes (`DatabaseError2`).
 */
export function isDatabaseError(error: unknown): boolean {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- reads optional fields of a thrown driver error, each checked before it is used
  const e = error as { code?: unknown; name?: string; message?: string; severity?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (code && DATABASE_ERROR_CODES.has(code)) return true;
  if (code && UNAVAILABLE_SQLSTATE.test(code) && typeof e?.severity === 'string') return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    e?.message ?? '',
  );
}
