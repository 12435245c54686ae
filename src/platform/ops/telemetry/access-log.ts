import { trace } from '@opentelemetry/api';
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from './create-logger.js';
import type { Metrics } from './metrics.js';
import { tracingStarted } from './tracing.js';
import { type RequestKind, type RequestRecord, attachRequest } from './request-context.js';

/** A request as Bolt hands it to the pipeline's one global middleware. */
export type RequestArgs = Parameters<Middleware<AnyMiddlewareArgs>>[0];

/** One step of the request pipeline: does its part around `handle`, the steps after it. */
export type PipelineStep = (args: RequestArgs, handle: (args: RequestArgs) => Promise<void>) => Promise<void>;

/**
 * The first step of every request: a record (who, where, what) that any code it calls can reach, one
 * access-log line at info when it ends (kind, id, user, channel, team, outcome, milliseconds: no secrets, no
 * text the user typed), and its count in `mintlink_requests_total{kind,id,outcome}`.
 */
export function accessLog(deps: { logger: Logger; metrics: Metrics }): PipelineStep {
  const ids = new BoundedLabels(200);
  // The line's fields are fixed and none is a secret's field, so pino's redaction by path (which would pass
  // each value through its wildcard paths, about three quarters of the line's cost) has nothing to remove; the
  // scrubber still reads the whole line before it is written (createLogger's hook).
  const log = deps.logger.child({}, { redact: [] });
  return async (args, handle) => {
    const record = describe(args);
    const started = performance.now();
    try {
      attachRequest(args.context, record);
      await handle(args);
    } catch (error) {
      record.outcome = 'failed';
      throw error;
    } finally {
      const ms = Math.round(performance.now() - started);
      const outcome = record.outcome ?? 'ok';
      const id = ids.label(record.id);
      // The request's span (TracedApp) gets its name and outcome now that both are known.
      if (tracingStarted())
        trace
          .getActiveSpan()
          ?.updateName(`slack ${record.kind} ${id}`)
          .setAttributes({ 'slack.kind': record.kind, 'slack.id': id, 'mintlink.outcome': outcome });
      deps.metrics.requests.inc({ kind: record.kind, id, outcome });
      deps.metrics.requestDuration.observe({ kind: record.kind, outcome }, ms / 1000);
      const { kind, user, channel, team } = record;
      log.info({ kind, id: record.id, user, channel, team, outcome, ms }, 'request');
    }
  };
}

/** What a request is, from the payload Slack sent (the command's subcommand is named later, by dispatch). */
function describe(args: RequestArgs): RequestRecord {
  const base = { outcome: undefined };
  if ('command' in args) {
    const { command } = args;
    return {
      ...base,
      kind: 'command',
      id: command.command,
      user: command.user_id,
      channel: command.channel_id,
      team: command.team_id,
    };
  }
  if ('event' in args) {
    const { event, body } = args;
    const user = 'user' in event && typeof event.user === 'string' ? event.user : undefined;
    const channel = 'channel' in event && typeof event.channel === 'string' ? event.channel : undefined;
    // A workflow step is work someone asked for, like a command: named by its step.
    if (event.type === 'function_executed' && 'function' in event)
      return { ...base, kind: 'step', id: event.function.callback_id, user, channel, team: body.team_id };
    return { ...base, kind: 'event', id: event.type, user, channel, team: body.team_id };
  }
  const kind: RequestKind =
    'view' in args ? 'view' : 'shortcut' in args ? 'shortcut' : 'options' in args ? 'options' : 'action';
  const body: { user?: { id?: string }; channel?: { id?: string }; team?: { id?: string } | null } = args.body;
  return {
    ...base,
    kind,
    id: payloadId(args),
    user: body.user?.id,
    channel: body.channel?.id,
    team: body.team?.id ?? undefined,
  };
}

function payloadId(args: RequestArgs): string {
  if ('view' in args) return args.view.callback_id;
  if ('shortcut' in args) return args.shortcut.callback_id;
  if ('options' in args) {
    const actionId: unknown = 'action_id' in args.options ? args.options.action_id : undefined;
    return typeof actionId === 'string' ? actionId : 'options';
  }
  if ('action' in args) {
    const { action } = args;
    if ('action_id' in action) return action.action_id;
    return 'callback_id' in action && typeof action.callback_id === 'string' ? action.callback_id : 'action';
  }
  return 'unknown';
}

/**
 * Label values taken from payloads: anyone who can sign a request chooses them, so only the first `max`
 * distinct ones get a series of their own (the app's own ids are far fewer); the rest count as "other".
 */
class BoundedLabels {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  label(value: string): string {
    const clean = /^[\w./:-]{1,64}$/.test(value) ? value : 'other';
    if (this.seen.has(clean)) return clean;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(clean);
    return clean;
  }
}
