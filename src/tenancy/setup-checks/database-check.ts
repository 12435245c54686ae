import { existsSync } from 'node:fs';
import { configHints } from '../../platform/ops/config/config-schema.js';
import type { StoreLocation } from '../../platform/ops/config/config.js';
import { describeDatabaseError, postgresTarget } from '../../platform/ops/lifecycle/database-error.js';
import { SqliteFileError } from '../../platform/ops/lifecycle/sqlite-file-problem.js';
import { openStore, type Store } from '../../platform/store/store.js';
import { count, fail, pass, type SetupItem } from './setup-items.js';

const START_ONCE =
  'Start the app once (npm start) against this database: it creates its tables and applies the migrations.';

/**
 * The database is reachable and migrated: every migration of this version applied. Never creates anything: a
 * SQLite file that is not there is reported, not made. Returns the open store when it can be read.
 */
export async function checkDatabase(location: StoreLocation): Promise<{ item: SetupItem; store: Store | undefined }> {
  const where = databasePlace(location);
  if (location.engine === 'sqlite' && location.path !== ':memory:' && !existsSync(location.path))
    return {
      item: fail(
        'database',
        `Database: ${location.path} does not exist`,
        `${START_ONCE} Or point DATABASE_URL to the app's database.`,
      ),
      store: undefined,
    };
  let store: Store;
  try {
    store = openStore(location);
  } catch (error) {
    if (!(error instanceof SqliteFileError)) throw error;
    return {
      item: fail('database', `Database: ${error.summary}`, `Fix DATABASE_URL: ${configHints.DATABASE_URL}.`),
      store: undefined,
    };
  }
  try {
    return { item: await checkMigrated(store, where), store };
  } catch (error) {
    await store.close().catch(() => undefined);
    return {
      item: fail(
        'database',
        `Database: ${describeDatabaseError(error, location)}`,
        location.engine === 'postgres'
          ? 'Check DATABASE_URL (user, password, host, database) and that the server runs.'
          : `Fix DATABASE_URL: ${configHints.DATABASE_URL}.`,
      ),
      store: undefined,
    };
  }
}

/** Where the database is, for people: the SQLite file, or the PostgreSQL database and server. */
export function databasePlace(location: StoreLocation): string {
  if (location.engine === 'sqlite') return `SQLite ${location.path}`;
  const { host, port, database } = postgresTarget(location.url);
  return `PostgreSQL ${database} on ${host}:${port}`;
}

/**
 * The open database answers, and every migration of this version is applied (throws when it does not answer).
 * `where` names it for the operator (left out where Slack users read it).
 */
export async function checkMigrated(
  store: Pick<Store, 'ping' | 'migrationState'>,
  where: string | undefined,
): Promise<SetupItem> {
  const title = where ? `Database (${where})` : 'Database';
  await store.ping(5_000);
  const { pending } = await store.migrationState();
  if (pending.length === 0) return pass('database', `${title}: reachable, and every migration is applied`);
  // Not one migration applied: a database the app never used.
  const none = pending.includes('001-audit-log');
  return fail(
    'database',
    none
      ? `${title}: reachable, but the app has never run against it (no tables)`
      : `${title}: reachable, but ${count(pending.length, 'migration')} of this version ${pending.length === 1 ? 'is' : 'are'} not applied (${pending.join(', ')})`,
    none ? START_ONCE : 'Start this version of the app (npm start): it applies the migrations at start.',
  );
}

/**
 * Why the database cannot be used, in the doctor's words (describeDatabaseError), for people in Slack: the
 * operator's host, port, file path and any URL replaced, since they tell a workspace nothing it can act on and
 * tell an attacker where the database is.
 */
export function databaseProblemForSlack(error: unknown, location: StoreLocation): string {
  let text = describeDatabaseError(error, location);
  if (location.engine === 'sqlite') text = text.split(location.path).join('the database file');
  else {
    const { host, port } = postgresTarget(location.url);
    text = text
      .split(`${host}:${port}`)
      .join('the database server')
      .split(`host "${host}"`)
      .join('the database server’s host')
      .split(host)
      .join('the database server');
  }
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '(an address)');
}
