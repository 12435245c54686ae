import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
} from 'kysely';

/**
 * Kysely's SQLite dialect, changed for several processes on one database file:
 * - transactions start with BEGIN IMMEDIATE, taking the write lock up front, so a second process waits
 *   (busy_timeout) instead of failing when its deferred read would have to become a write;
 * - migrations run in one such transaction (SQLite's DDL is transactional), so two processes starting at
 *   once apply them one after the other rather than racing (Kysely takes no migration lock on SQLite).
 */
export class MultiProcessSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): SqliteDriver {
    return new ImmediateTransactionDriver(this.settings);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlAdapter();
  }
}

class ImmediateTransactionDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
