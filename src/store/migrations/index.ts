import type { Migration, MigrationProvider } from 'kysely';
import * as auditLog from './001-audit-log.js';
import * as deletionRequests from './002-deletion-requests.js';

/** Migrations in order; names are permanent once released. */
const migrations: Record<string, Migration> = {
  '001-audit-log': auditLog,
  '002-deletion-requests': deletionRequests,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
