import { AsyncLocalStorage } from 'node:async_hooks';

/** How a request ended, for the access log and `mintlink_requests_total`. */
export type Outcome = 'ok' | 'invalid_input' | 'refused' | 'busy' | 'failed' | 'upstream_error';

export type RequestKind = 'command' | 'action' | 'view' | 'shortcut' | 'options' | 'event';

/** One Slack request being handled: who, where, what, and how it is going. */
export interface RequestRecord {
  kind: RequestKind;
  /** The subcommand, action_id, callback_id or event type. */
  id: string;
  user: string | undefined;
  channel: string | undefined;
  team: string | undefined;
  outcome: Outcome | undefined;
}

const storage = new AsyncLocalStorage<RequestRecord>();

/** Runs a request's handling with its record reachable from any code it calls (log lines, outcomes). */
export function runInRequest<T>(record: RequestRecord, work: () => Promise<T>): Promise<T> {
  return storage.run(record, work);
}

/** The request being handled here, if any. */
export function currentRequest(): RequestRecord | undefined {
  return storage.getStore();
}

/**
 * Says how the request is ending. A later note replaces an earlier one, except that a failure stays a
 * failure: something that went wrong is not made good by what follows.
 */
export function noteOutcome(outcome: Outcome): void {
  const record = storage.getStore();
  if (record && record.outcome !== 'failed') record.outcome = outcome;
}

/** Names the request more precisely than its payload can (the subcommand a command turned out to be). */
export function noteRequestId(id: string): void {
  const record = storage.getStore();
  if (record) record.id = id;
}

/** Who and where, for log lines written while a request is handled (never any text the user typed). */
export function requestLogFields(): Record<string, string> {
  const record = storage.getStore();
  if (!record) return {};
  const fields: Record<string, string> = { kind: record.kind, id: record.id };
  if (record.user) fields.user = record.user;
  if (record.channel) fields.channel = record.channel;
  if (record.team) fields.team = record.team;
  return fields;
}
