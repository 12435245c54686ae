/*
 * Column types are chosen to mean the same in SQLite and PostgreSQL: text ids (UUIDv7 made by the app, so
 * they sort by creation time),
 * times as ISO 8601 UTC text (they sort as text), JSON as text.
 */

export interface AuditLogTable {
  id: string;
  /** ISO 8601 UTC. */
  at: string;
  /** Slack user id of who did it. */
  actor_id: string;
  team_id: string | null;
  /** What was done, e.g. `link.create`. */
  operation: string;
  /** JSON summary of the inputs (bounded in size). */
  inputs: string;
  /** `succeeded`, `failed`, or a transition name for multi-step operations. */
  outcome: string;
  /** Result or error summary, e.g. the link URL or the error message. */
  detail: string | null;
}

export interface Tables {
  audit_log: AuditLogTable;
}
