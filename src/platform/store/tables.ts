/*
 * Column types are chosen to mean the same in SQLite and PostgreSQL: text ids (UUIDv7 made by the app, so
 * they sort by creation time),
 * times as ISO 8601 UTC text (they sort as text), JSON as text. A status or kind column the store alone writes,
 * from a fixed set, is typed as that set's union (text in the database), so its rows read back typed.
 */

/**
 * pending -> approved -> running -> done | failed;  failed|attention -> running (retry)
 * pending -> rejected | cancelled | expired;  approved|running -> attention (the process died mid-run)
 */
export type DeletionStatus =
  'pending' | 'approved' | 'rejected' | 'cancelled' | 'expired' | 'running' | 'done' | 'failed' | 'attention';

/** What a bulk job makes, one per row. */
export type BulkKind = 'links' | 'wallets';

/**
 * draft -> running (Start, by the requester only) | deleted when never started;
 * running <-> paused; running | paused -> finishing (every row settled, or cancelled: the rows not yet sent
 * are cancelled); finishing -> done (the results file sent, or why it could not be).
 */
export type BulkJobStatus = 'draft' | 'running' | 'paused' | 'finishing' | 'done';

/**
 * invalid (never sent) | pending -> sending -> done | failed | unknown;  sending -> pending only when the
 * request was not sent (held back by the app, or refused by the service before doing anything);
 * pending -> cancelled. `unknown`: it was sent and its outcome was not recorded: never sent again by the app.
 */
export type BulkRowStatus = 'invalid' | 'pending' | 'sending' | 'done' | 'failed' | 'unknown' | 'cancelled';

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
  status: DeletionStatus;
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
  /** Of a finished deletion: how many customers the Mint service said it did not find (null: none named). */
  not_found_count: number | null;
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
  /**
   * JSON `{users, userGroups}`: who could approve it, fixed when it was opened (the settings then in force).
   * Null (or absent) on requests from before migration 010: those follow the settings.
   */
  approvers?: string | null;
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
  /** The execution's token, sealed (src/platform/slack/workflow-steps/sealed-token.ts); emptied once the step is completed. */
  sealed_token: string;
  /** waiting -> completing -> completed (completing -> waiting when Slack could not be told). */
  state: string;
  created_at: string;
  claimed_at: string | null;
  completed_at: string | null;
  /**
   * How the step ended: `completed`, `failed`, `gone` (Slack no longer knew the execution), `abandoned`
   * (Slack kept refusing to be told) or `uninstalled` (its workspace removed the app).
   */
  result: string | null;
  /** Reports that failed so far; the next is not tried before `next_try_at`. */
  attempts: number;
  next_try_at: string | null;
}

/** Who has an App Home published, and the hash of what they see (so an older update never replaces it). */
export interface HomeTabsTable {
  /** The workspace ('' for rows from before, until the app gives them the bot's workspace). */
  team_id: string;
  user_id: string;
  hash: string | null;
  published_at: string;
}

/** Work done once per key (see OnceKeys). */
export interface OnceKeysTable {
  key: string;
  claimed_at: string;
  /** The workspace it was claimed for (null: before migration 012, or work of no workspace). */
  team_id?: string | null;
}

/** A bulk job (see BulkJobs for its statuses). */
export interface BulkJobsTable {
  id: string;
  team_id: string | null;
  requester_id: string;
  kind: BulkKind;
  status: BulkJobStatus;
  /** The file's name, or `pasted text`. */
  source_name: string;
  /** JSON array of the header as written in the file (the results file repeats it). */
  columns: string;
  /** JSON of the defaults every row starts from (links). */
  defaults: string;
  total_rows: number;
  valid_rows: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Who last paused, resumed or cancelled it (`system` for the app itself). */
  changed_by: string | null;
  /** Why it is paused, when the app paused it. */
  note: string | null;
  cancelled_by: string | null;
  /** The audit entry of the job: every row's outcome is linked to it through the job. */
  audit_id: string | null;
  /** The progress message in the requester's DM. */
  message_channel: string | null;
  message_ts: string | null;
  /** When the progress message was last updated, and a digest of what it showed. */
  progress_at: string | null;
  progress_digest: string | null;
  /** When a process took on writing the results (finishing); another takes over if it goes silent. */
  finish_claimed_at: string | null;
  finish_attempts: number;
  results_file_id: string | null;
  /** Why no results file could be sent, if so. */
  results_note: string | null;
  /** The job whose failed rows this one retries. */
  retry_of: string | null;
  /** The retry of this job's failed rows, once started (set once). */
  retried_as: string | null;
  /** A retry's draft: the rows it holds back unless the person chooses them (outcome unknown before). */
  held_rows: number;
}

/** One row of a bulk job. */
export interface BulkRowsTable {
  job_id: string;
  /** As a spreadsheet numbers it: the header is row 1. */
  row_number: number;
  status: BulkRowStatus;
  /** JSON array of the row's cells as written, in the header's order. */
  cells: string;
  /** JSON of the request to send (valid rows). */
  request: string | null;
  /** What was wrong with the row, or what the Mint service said. */
  error: string | null;
  /** The created link's URL, when the answer gave one. */
  result_url: string | null;
  /** The process sending it, and since when. */
  claimed_by: string | null;
  claimed_at: string | null;
  finished_at: string | null;
}

/** A draft's rows, packed until Start writes them out as bulk_rows (see packRows in bulk-draft-rows.ts). */
export interface BulkDraftsTable {
  job_id: string;
  /** Gzip-compressed JSON lines, one row each, in base64. */
  packed_rows: string;
}

/** One workspace's settings administered in Slack (see WorkspaceSettingsRows). */
export interface WorkspaceSettingsTable {
  team_id: string;
  /** Moved by one at each save, by compare-and-set: two saves from the same version, one wins. */
  version: number;
  /** JSON: each setting an admin set, with its value, who set it and when (the others are the environment's). */
  settings: string;
  updated_by: string;
  updated_at: string;
}

/** One installation of the app (see InstallationRows); the token columns hold sealed values only. */
export interface InstallationsTable {
  /** `T<team id>` for a workspace install, `E<enterprise id>` for an Enterprise Grid org-wide install. */
  id: string;
  team_id: string | null;
  enterprise_id: string | null;
  /** 1 for an org-wide install (then team_id is null), else 0. */
  is_enterprise_install: number;
  /** Who installed it (Slack user id). */
  installer_id: string;
  bot_token: string | null;
  bot_refresh_token: string | null;
  user_token: string | null;
  user_refresh_token: string | null;
  /** JSON: the rest of Bolt's Installation (names, scopes, ids, expiry times), without any secret. */
  details: string;
  installed_at: string;
  updated_at: string;
  /** While a replica renews the tokens (rotation): until when its lease holds (see InstallationRows.claimRenewal). */
  renewal_until: string | null;
}

/** A workspace's own Mint account (distribution mode); the key is sealed, never stored in clear. */
export interface MintAccountsTable {
  team_id: string;
  sealed_key: string;
  /** The key's last four characters: all that is ever shown of it. */
  key_last4: string;
  /** The service's base URL for this workspace, when the operator lets each workspace set one. */
  base_url: string | null;
  connected_by: string;
  connected_at: string;
  /** When the service last refused the key (401/403), and with which status; null once it accepts it again. */
  refused_at: string | null;
  refused_status: number | null;
}

/** The org-wide installation that serves a workspace of an Enterprise Grid organization. */
export interface InstallationTeamsTable {
  team_id: string;
  installation_id: string;
  seen_at: string;
  /** When it was recorded as the installation's (migration 019); null for a row recorded before. */
  joined_at: string | null;
}

/** When Slack says a workspace left an org-wide installation (migration 019). */
export interface InstallationTeamDeparturesTable {
  team_id: string;
  installation_id: string;
  left_at: string;
}

/** How an account's last real call to the Mint service ended (migration 014). */
export interface MintCallOutcomesTable {
  /** A workspace's team id, or '' for the operator's account (MINT_API_KEY). */
  account: string;
  key_id: string;
  /** See MintCallOutcome. */
  outcome: string;
  status: number | null;
  /** ISO 8601 UTC. */
  at: string;
}

/**
 * What was made through the app, one row per audit entry that made it, and one per link or wallet a bulk job made
 * (migration 020; see history/).
 */
export interface HistoryTable {
  /** The audit entry's id; of a bulk job's link or wallet, the job's id and the row's number (`BK-…/12`). */
  id: string;
  team_id: string;
  /** See HistoryKind. */
  kind: string;
  actor_id: string;
  /** ISO 8601 UTC: the audit entry's time (a bulk job's row: when it was settled). */
  made_at: string;
  /** `form`, `workflow`, `message` or `bulk` (see HistoryHow). */
  how: string;
  /** The audit entry's outcome (a deletion's live status is its request's). */
  outcome: string;
  nft_id: string | null;
  /** JSON array of customer ids. */
  customer_ids: string;
  email: string | null;
  /** The link's URL, once made. */
  url: string | null;
  /** A deletion request's id. */
  request_id: string | null;
  /** A bulk job's id: the job's row, and those of the links and wallets it made. */
  job_id: string | null;
  /** JSON of what else a result shows (a link's quantity, dates, active; a job's source and rows). */
  facts: string;
}

/** One searchable word of a history row, with what filters need (migration 020). */
export interface HistoryTermsTable {
  history_id: string;
  /** Lowercased. */
  term: string;
  team_id: string;
  kind: string;
  actor_id: string;
  made_at: string;
}

/**
 * Who was asked to decide a deletion request in History (migration 021): `user:U…`, `group:S…`, or `approvers`
 * (a request from before its approvers were recorded: those in force decide it).
 */
export interface HistoryAudienceTable {
  history_id: string;
  audience: string;
  team_id: string;
  actor_id: string;
  made_at: string;
}

/** A user group some deletion request of a workspace was asked of (migration 021). */
export interface HistoryGroupsTable {
  team_id: string;
  group_id: string;
}

/** Someone who made History rows, and their Slack names (migration 021). */
export interface HistoryPeopleTable {
  team_id: string;
  user_id: string;
  /** Real name, display name and handle, lowercased, one line; null until read from Slack. */
  names: string | null;
  /** When the names were read (ISO 8601 UTC); null until then. */
  named_at: string | null;
}

/** How far a copy into history has gone (migration 020): the last audit entry read, by (at, id). */
export interface HistoryBackfillTable {
  name: string;
  after_at: string | null;
  after_id: string | null;
  copied: number;
  finished_at: string | null;
}

export interface Tables {
  audit_log: AuditLogTable;
  deletion_requests: DeletionRequestsTable;
  home_tabs: HomeTabsTable;
  once_keys: OnceKeysTable;
  step_completions: StepCompletionsTable;
  deletion_approvals: DeletionApprovalsTable;
  deletion_reminders: DeletionRemindersTable;
  bulk_jobs: BulkJobsTable;
  bulk_rows: BulkRowsTable;
  bulk_drafts: BulkDraftsTable;
  workspace_settings: WorkspaceSettingsTable;
  installations: InstallationsTable;
  mint_accounts: MintAccountsTable;
  installation_teams: InstallationTeamsTable;
  installation_team_departures: InstallationTeamDeparturesTable;
  mint_call_outcomes: MintCallOutcomesTable;
  history: HistoryTable;
  history_terms: HistoryTermsTable;
  history_backfill: HistoryBackfillTable;
  history_audience: HistoryAudienceTable;
  history_groups: HistoryGroupsTable;
  history_people: HistoryPeopleTable;
}
