import type { KnownBlock } from '@slack/types';
import type { Outcome } from '../../ops/telemetry/request-context.js';

/** The outcomes a listener can end a request with, telling the person why. */
export type ToldOutcome = Extract<Outcome, 'refused' | 'invalid_input' | 'upstream_error' | 'busy'>;

/**
 * Thrown by a listener (or anything it calls) to end the request with something the person should read: the
 * pipeline records the outcome and tells them `text` in the way the request allows (the command's ephemeral
 * answer, a note to whoever clicked, the modal replaced by a notice, a DM). A listener never writes that
 * plumbing itself.
 */
export class RequestEnded extends Error {
  constructor(
    readonly outcome: ToldOutcome,
    readonly text: string,
    /** Richer content where the request allows it (a command's answer); `text` is the fallback. */
    readonly blocks?: KnownBlock[],
    /** What failed, for the operator's log: its message and the error behind it. */
    readonly failure?: { log: string; cause: unknown },
  ) {
    super(text, failure ? { cause: failure.cause } : undefined);
    this.name = 'RequestEnded';
  }
}

/** The person may not do this, or it cannot be done as things stand. */
export function refused(text: string, blocks?: KnownBlock[]): RequestEnded {
  return new RequestEnded('refused', text, blocks);
}

/** What the person typed or clicked cannot be used. */
export function invalidInput(text: string, blocks?: KnownBlock[]): RequestEnded {
  return new RequestEnded('invalid_input', text, blocks);
}

/** Slack or the Mint service did not do what was asked; `failure` is logged for the operator. */
export function upstreamFailed(text: string, failure?: { log: string; cause: unknown }): RequestEnded {
  return new RequestEnded('upstream_error', text, undefined, failure);
}

/** A second delivery of work already handled: the request ends quietly, the first one answers. */
export class AlreadyHandled extends Error {
  constructor() {
    super('already handled');
    this.name = 'AlreadyHandled';
  }
}
