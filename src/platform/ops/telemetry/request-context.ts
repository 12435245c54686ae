/** How a request ended, for the access log and `mintlink_requests_total`. */
export type Outcome = 'ok' | 'invalid_input' | 'refused' | 'busy' | 'failed' | 'upstream_error';

export type RequestKind = 'command' | 'action' | 'view' | 'shortcut' | 'options' | 'event' | 'step';

/** One Slack request being handled: who, where, what, and how it is going. */
export interface RequestRecord {
  kind: RequestKind;
  /** The subcommand, action_id, callback_id (of a view, shortcut or workflow step) or event type. */
  id: string;
  user: string | undefined;
  channel: string | undefined;
  team: string | undefined;
  outcome: Outcome | undefined;
}

/**
 * The record belongs to Bolt's `context`, the one object every middleware and listener of a request shares.
 * (Not AsyncLocalStorage: on Node 20 it turns on promise hooks for the whole process, which costs about a
 * millisecond of CPU per request in `npm run bench`, a quarter of the app's.)
 */
const records = new WeakMap<object, RequestRecord>();

export function attachRequest(context: object, record: RequestRecord): void {
  records.set(context, record);
}

export function requestOf(context: object): RequestRecord | undefined {
  return records.get(context);
}

/**
 * Says how the request is ending. A later note replaces an earlier one, except that a failure stays a
 * failure: something that went wrong is not made good by what follows.
 */
export function noteOutcome(request: RequestRecord | undefined, outcome: Outcome): void {
  if (request && request.outcome !== 'failed') request.outcome = outcome;
}

/** Names the request more precisely than its payload can (the subcommand a command turned out to be). */
export function noteRequestId(request: RequestRecord | undefined, id: string): void {
  if (request) request.id = id;
}

/** Who and where, for log lines about a request (never any text the user typed). */
export function requestLogFields(request: RequestRecord | undefined): Record<string, string> {
  if (!request) return {};
  const fields: Record<string, string> = { kind: request.kind, id: request.id };
  if (request.user) fields.user = request.user;
  if (request.channel) fields.channel = request.channel;
  if (request.team) fields.team = request.team;
  return fields;
}
