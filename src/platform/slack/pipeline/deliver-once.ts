import { createHash } from 'node:crypto';
import type { BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { Store } from '../../store/store.js';
import { stringFieldOf } from '../../unknown-fields.js';

/**
 * The same form submission delivered twice (a proxy's retry, a double click) has the same view, version and
 * values; a form corrected after an inline error has other values, and counts as new.
 */
export function submissionKey(body: ViewSubmitAction, teamId: string): string {
  const { view } = body;
  return digest(['submission', teamId, view.id, view.hash, JSON.stringify(view.state.values)]);
}

/** The same click delivered twice has the same user, button and action time. */
export function clickKey(body: BlockAction<ButtonAction>, teamId: string): string {
  const action = body.actions[0];
  return digest(['click', teamId, body.user.id, action?.action_id ?? '', action?.value ?? '', action?.action_ts ?? '']);
}

/**
 * The key of an Events API delivery. Slack sends an event again when its first delivery's ack seemed slow or
 * failed (up to three retries, the last about five minutes after the first: over HTTP with the
 * `x-slack-retry-num` and `x-slack-retry-reason` headers, over Socket Mode with the envelope's `retry_attempt`
 * and `retry_reason`), always with the same `event_id`, which Slack gives no other event.
 */
export function eventKey(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('event_id' in body)) return undefined;
  const { event_id: eventId } = body;
  if (typeof eventId !== 'string' || eventId === '') return undefined;
  // Scoped by the app and the workspace (or organization) too: Slack promises event ids unique, but a key
  // one app or workspace could choose must never suppress another's event.
  const named = (field: string) => stringFieldOf(body, field) ?? '';
  return `event:${digest([named('api_app_id'), named('team_id') || named('enterprise_id'), eventId])}`;
}

/**
 * True the first time this key is seen by any replica: the caller does the work; later deliveries do not.
 * Call it after the ack: it asks the database, which must not delay Slack's 3 seconds. With the database
 * away it says true: the work itself needs the database too, and is the one to tell the user it cannot run.
 */
export async function firstDelivery(
  store: Pick<Store, 'onceKeys'>,
  key: string,
  teamId: string | undefined,
): Promise<boolean> {
  try {
    return await store.onceKeys.claim(key, teamId);
  } catch {
    return true;
  }
}

function digest(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url');
}
