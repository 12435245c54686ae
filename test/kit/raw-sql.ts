import SQLite from 'better-sqlite3';
import pg from 'pg';

/**
 * Runs one SQL statement against an app's database (a DATABASE_URL), for what a test must do behind the
 * app's back, such as letting time pass for a request. `?` placeholders work for both engines.
 */
export async function runSql(databaseUrl: string, statement: string, params: unknown[] = []): Promise<void> {
  if (databaseUrl.startsWith('file:')) {
    const db = new SQLite(databaseUrl.slice(5));
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare(statement).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let n = 0;
    await client.query(
      statement.replace(/\?/g, () => `$${++n}`),
      params,
    );
  } finally {
    await client.end();
  }
}

/** Runs one SQL query against an app's database and returns its rows (a write returns none). */
export async function queryRows(databaseUrl: string, statement: string): Promise<Array<Record<string, unknown>>> {
  if (databaseUrl.startsWith('file:')) {
    const db = new SQLite(databaseUrl.slice(5));
    try {
      db.pragma('busy_timeout = 5000');
      const prepared = db.prepare(statement);
      if (!prepared.reader) {
        prepared.run();
        return [];
      }
      return prepared.all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}
