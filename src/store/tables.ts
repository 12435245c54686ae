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
  /**
   * Null (or absent: rows from before migration 005) when a person did it in Slack's UI; `workflow <execution
   * id>` when a workflow step did.
   */
  origin?: string | null;
  /** JSON summary of the inputs (bounded in size). */
  inputs: string;
  /** `succeeded`, `failed`, or a transition name for multi-step operations. */
  outcome: string;
  /** Result or error summary, e.g. the link URL or the error message. */
  detail: string | null;
}

export interface DeletionRequestsTable {
  id: string;
  team_id: string | null;
  requester_id: string;
  /** JSON array of the customer ids, duplicates removed, in the order given. */
  customer_ids: string;
  customer_count: number;
  duplicates_removed: number;
  reason: string;
  /** See DeletionStatus. */
  status: string;
  created_at: string;
  expires_at: string;
  updated_at: string;
  decided_by: string | null;
  decided_at: string | null;
  /** Why it was rejected (optional), or how it was cancelled/expired. */
  decision_note: string | null;
  approval_channel_id: string | null;
  approval_message_ts: string | null;
  /** Where the requester was told (their DM), to update it on cancel. */
  requester_message_channel: string | null;
  requester_message_ts: string | null;
  run_started_at: string | null;
  /** Who started the last run (the approver, or whoever retried). */
  run_by: string | null;
  finished_at: string | null;
  outcome_detail: string | null;
  /** How many times the deletion has been sent. */
  attempts: number;
  /** Approvals the request needs, fixed when it was made (the quorum then in force). */
  approvals_needed: number;
  /** Approvals it has; moved only by compare-and-set, together with `approved_by`. */
  approvals: number;
  /** JSON array of the approvers' user ids, in the order they approved. */
  approved_by: string;
  /** Null when asked in Slack's UI; `workflow <execution id>` when a workflow step asked. */
  origin: string | null;
  /** The permalink of the message the request was made from (the message shortcut). */
  context_url: string | null;
}

/** One approval of a deletion request: who, when (one per approver and request). */
export interface DeletionApprovalsTable {
  request_id: string;
  approver_id: string;
  approved_at: string;
}

/** A reminder sent about a deletion request (`reminder` in its thread, `expiry-warning` to the requester). */
export interface DeletionRemindersTable {
  request_id: string;
  kind: string;
  sent_at: string;
}

/** A workflow step waiting for a deletion request to end (see StepCompletions). */
export interface StepCompletionsTable {
  request_id: string;
  function_execution_id: string;
  /** The execution's token, sealed (src/workflow-steps/sealed-token.ts); emptied once the step is completed. */
  sealed_token: string;
  /** waiting -> completing -> completed (completing -> waiting when Slack could not be told). */
  state: string;
  created_at: string;
  claimed_at: string | null;
  completed_at: string | null;
  /**
   * How the step ended: `completed`, `failed`, `gone` (Slack no longer knew the execution) or `abandoned`
   * (Slack kept refusing to be told).
   */
  result: string | null;
  /** Reports that failed so far; the next is not tried before `next_try_at`. */
  attempts: number;
  next_try_at: string | null;
}

/** Who has an App Home published, and the hash of what they see (so an older update never replaces it). */
export interface HomeTabsTable {
  user_id: string;
  team_id: string | null;
  hash: string | null;
  published_at: string;
}

/** Work done once per key (see OnceKeys). */
export interface OnceKeysTable {
  key: string;
  claimed_at: string;
}

export interface Tables {
  audit_log: AuditLogTable;
  deletion_requests: DeletionRequestsTable;
  home_tabs: HomeTabsTable;
  once_keys: OnceKeysTable;
  step_completions: StepCompletionsTable;
  deletion_approvals: DeletionApprovalsTable;
  deletion_reminders: DeletionRemindersTable;
}
