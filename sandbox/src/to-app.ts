import { createHmac } from 'node:crypto';

/*
 * Slack's side of HTTP mode: every request is signed with the signing secret (v0 HMAC-SHA256 over
 * `v0:{timestamp}:{body}`) and must be acknowledged within 3 seconds. A later ack is too late: Slack has
 * already shown the person an error, and whatever the ack carried (a message, a response_action) is lost.
 */

export const ACK_DEADLINE_MS = 3_000;

export type AckResult =
  | { ok: true; ms: number; status: number; body: Record<string, unknown> | undefined; text: string }
  | { ok: false; ms: number; reason: 'timeout' | 'status' | 'network'; status?: number; detail: string };

export class AppLink {
  /** `eventsUrl` is asked at each request: the app may have been launched again on another port (see sandbox.ts). */
  constructor(
    private readonly eventsUrl: () => string,
    private readonly signingSecret: string,
  ) {}

  /** A slash command: form fields. */
  command(fields: Record<string, string>): Promise<AckResult> {
    return this.send(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
  }

  /** An interaction (block_actions, view_submission, view_closed, shortcut, message_action): `payload=`. */
  interaction(payload: Record<string, unknown>): Promise<AckResult> {
    return this.send(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
  }

  /** An Events API callback: JSON. */
  event(callback: Record<string, unknown>): Promise<AckResult> {
    return this.send(JSON.stringify(callback), 'application/json');
  }

  private async send(body: string, contentType: string): Promise<AckResult> {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', this.signingSecret).update(`v0:${timestamp}:${body}`).digest('hex');
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), ACK_DEADLINE_MS);
    try {
      const response = await fetch(this.eventsUrl(), {
        method: 'POST',
        headers: {
          'content-type': contentType,
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': `v0=${signature}`,
        },
        body,
        signal: controller.signal,
      });
      const text = await response.text();
      if (response.status !== 200)
        return { ok: false, ms: ms(), reason: 'status', status: response.status, detail: text.slice(0, 200) };
      return { ok: true, ms: ms(), status: 200, body: parseAck(text), text };
    } catch (error) {
      if (controller.signal.aborted)
        return { ok: false, ms: ms(), reason: 'timeout', detail: `no ack within ${ACK_DEADLINE_MS} ms` };
      return { ok: false, ms: ms(), reason: 'network', detail: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}

function parseAck(text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : { text };
  } catch {
    return { text }; // a plain-text ack of a command is shown as a message
  }
}
