import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { TEST_APP_ID } from './slack-ids.js';
import { addressedToLoopback } from './loopback-host.js';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

export interface Ack {
  envelope_id: string;
  payload?: Record<string, unknown>;
}

/**
 * Slack's side of Socket Mode (https://api.slack.com/apis/socket-mode): says hello on connect, sends
 * envelopes, and collects the acks the app returns. Served on the fake Slack's port at /socket.
 */
export class FakeSocketMode {
  readonly acks: Ack[] = [];
  /** Connections opened since the start (reconnections included). */
  opened = 0;
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<WebSocket>();
  private readonly pending = new Map<string, (ack: Ack) => void>();
  private readonly connectWaiters: Array<() => void> = [];
  private readonly pinger: NodeJS.Timeout;

  constructor(server: Server) {
    // Loopback names only, as every request to the stand-in (see addressedToLoopback).
    this.wss = new WebSocketServer({
      server,
      path: '/socket',
      verifyClient: (info: { req: IncomingMessage }) => addressedToLoopback(info.req),
    });
    this.wss.on('connection', (ws) => {
      this.opened += 1;
      this.connections.add(ws);
      ws.on('close', () => this.connections.delete(ws));
      ws.on('message', (data: Buffer) => this.onMessage(data.toString('utf8')));
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: this.connections.size,
          connection_info: { app_id: TEST_APP_ID },
          debug_info: { host: 'fake', approximate_connection_time: 3600 },
        }),
      );
      for (const wake of this.connectWaiters.splice(0)) wake();
    });
    // Slack pings the client; the SDK reconnects when the server stays silent for 30 s.
    this.pinger = setInterval(() => this.connections.forEach((ws) => ws.ping()), 10_000);
  }

  url(httpBase: string): string {
    return `${httpBase.replace(/^http/, 'ws')}/socket?ticket=${randomUUID()}`;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  async waitForConnection(timeoutMs = 10_000): Promise<void> {
    if (this.connections.size > 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no Socket Mode connection')), timeoutMs);
      this.connectWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Sends an envelope to one connected client (as Slack does) and resolves with the app's ack. `retry`: Slack's
   * retry of an event whose first envelope was not acknowledged (the envelope's retry_attempt, retry_reason).
   */
  async send(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    timeoutMs = 5_000,
    retry?: { attempt: number; reason: string },
  ): Promise<Ack> {
    const ws = [...this.connections][0];
    if (!ws) throw new Error('no Socket Mode client connected');
    const envelopeId = randomUUID();
    const acked = new Promise<Ack>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`envelope ${type} not acknowledged within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.pending.set(envelopeId, (ack) => {
        clearTimeout(timer);
        resolve(ack);
      });
    });
    ws.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: type !== 'events_api',
        ...(retry ? { retry_attempt: retry.attempt, retry_reason: retry.reason } : {}),
      }),
    );
    return acked;
  }

  /** Asks connected clients to reconnect, as Slack does every few hours. */
  requestRefresh(): void {
    for (const ws of this.connections) ws.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested' }));
  }

  async close(): Promise<void> {
    clearInterval(this.pinger);
    for (const ws of this.connections) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onMessage(text: string): void {
    const ack = JSON.parse(text) as Ack;
    this.acks.push(ack);
    this.pending.get(ack.envelope_id)?.(ack);
    this.pending.delete(ack.envelope_id);
  }
}
