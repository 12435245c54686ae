import { createHash } from 'node:crypto';
import type { BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { Store } from '../store/store.js';
import { noticeModal } from './notice-modal.js';

/**
 * The same form submission delivered twice (a proxy's retry, a double click) has the same view, version and
 * values; a form corrected after an inline error has other values, and counts as new.
 */
export function submissionKey(body: ViewSubmitAction): string {
  const { view } = body;
  return digest(['submission', view.id, view.hash, JSON.stringify(view.state.values)]);
}

/** The same click delivered twice has the same user, button and action time. */
export function clickKey(body: BlockAction<ButtonAction>): string {
  const action = body.actions[0];
  return digest(['click', body.user.id, action?.action_id ?? '', action?.value ?? '', action?.action_ts ?? '']);
}

/** True the first time this key is seen by any replica: the caller does the work; later deliveries do not. */
export function firstDelivery(store: Pick<Store, 'onceKeys'>, key: string): Promise<boolean> {
  return store.onceKeys.claim(key);
}

/** What a form submitted again shows: the first submission is being worked on and will say how it ended. */
export function alreadySubmittedView(title: string): ModalView {
  return noticeModal(
    title,
    ':hourglass_flowing_sand: This form was already submitted and is being worked on. Its outcome shows here and comes to you as a direct message.',
  );
}

function digest(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url');
}
