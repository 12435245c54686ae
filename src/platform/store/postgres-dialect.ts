import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

/**
 * PostgreSQL as Kysely's dialect has it, but what the migrator looks up before each run (does its schema, do its
 * tables exist?) is read from the catalog of the database's schemas by name only. Kysely's own introspector
 * reads every column of every table in every schema, with a function call per column: slow on a large
 * database, and it fails ("column … does not exist") when another schema's column is dropped during the read
 * (another app on the same server, or a test's own schema beside this one).
 */
export class PostgresDialectLightIntrospection extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new NamesOnlyIntrospector(db);
  }
}

class NamesOnlyIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  /** Tables and views by name and schema; their columns are not read (the migrator looks only at names). */
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'v', 'p') and n.nspname not in ('pg_catalog', 'information_schema')`.execute(this.db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.kind === 'v', columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}
