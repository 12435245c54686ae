import { App, type ReceiverEvent } from '@slack/bolt';
import { SpanKind, pastSpan, tracer, tracingStarted } from './tracing.js';

/**
 * Bolt's App, with each request in a span from the moment the receiver hands it over: the ack (Bolt acks
 * events before any middleware runs), the middleware, the listener and every call they make nest in it, so
 * one request is one trace. `processEvent` is the method Bolt's receivers call for every request; nothing
 * else changes. With tracing off it is Bolt's App as it is.
 */
export class TracedApp extends App {
  override async processEvent(event: ReceiverEvent): Promise<void> {
    if (!tracingStarted()) return super.processEvent(event);
    const arrived = Date.now();
    return tracer().startActiveSpan('slack request', { kind: SpanKind.SERVER }, async (span) => {
      try {
        await super.processEvent({
          ...event,
          // A span from arrival to the ack: what Slack's 3 seconds are measured against.
          ack: async (response) => {
            await event.ack(response);
            pastSpan('slack ack', Date.now() - arrived, {});
          },
        });
      } finally {
        span.end();
      }
    });
  }
}
