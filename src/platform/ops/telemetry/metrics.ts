import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The app's Prometheus metrics, on a registry of their own (one per app instance, none global). */
export interface Metrics {
  registry: Registry;
  /** Every Slack request handled: kind (command, action, view, shortcut, event), id, and how it ended. */
  requests: Counter<'kind' | 'id' | 'outcome'>;
  requestDuration: Histogram<'kind' | 'outcome'>;
  /** Requests answered "busy" because the work budget was full, by kind. */
  busyRefusals: Counter<'kind'>;
  /** Calls to Slack's Web API by method and error (`ok` when it succeeded), and posts to response_urls. */
  slackCalls: Counter<'method' | 'error'>;
  mintApiCalls: Counter<'operation' | 'status'>;
  mintApiDuration: Histogram<'operation' | 'status'>;
}

export interface MetricSources {
  /** Work in flight now (the admission budget's count). */
  workInFlight: () => number;
  /** Deletion requests by status, read from the database when /metrics is scraped. */
  deletionRequestsByStatus?: () => Promise<Record<string, number>>;
}

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'mintlink_work_in_flight',
    help: 'Slack requests and background work in progress (the admission budget in use)',
    registers: [registry],
    collect() {
      this.set(sources.workInFlight());
    },
  });
  const { deletionRequestsByStatus } = sources;
  if (deletionRequestsByStatus) {
    new Gauge({
      name: 'mintlink_deletion_requests',
      help: 'Customer deletion requests in the database, by status',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        // A database that does not answer leaves the gauge as it was: /readyz says why.
        const counts = await deletionRequestsByStatus().catch(() => undefined);
        if (!counts) return;
        this.reset();
        for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
      },
    });
  }
  return {
    registry,
    requests: new Counter({
      name: 'mintlink_requests_total',
      help: 'Slack requests handled, by kind, id (subcommand, action_id, callback_id, event type) and outcome',
      labelNames: ['kind', 'id', 'outcome'],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'mintlink_request_duration_seconds',
      help: 'Time from a Slack request to the end of its work (after the ack included), by kind and outcome',
      labelNames: ['kind', 'outcome'],
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    busyRefusals: new Counter({
      name: 'mintlink_busy_refusals_total',
      help: 'Requests answered "busy, try again" because the work budget was full, by kind',
      labelNames: ['kind'],
      registers: [registry],
    }),
    slackCalls: new Counter({
      name: 'mintlink_slack_api_calls_total',
      help: 'Calls to the Slack Web API by method and error ("ok" when it succeeded), and response_url posts',
      labelNames: ['method', 'error'],
      registers: [registry],
    }),
    mintApiCalls: new Counter({
      name: 'mintlink_mint_api_calls_total',
      help: 'Calls to the Mint service, by operation and HTTP status (or timeout/network/not_sent)',
      labelNames: ['operation', 'status'],
      registers: [registry],
    }),
    mintApiDuration: new Histogram({
      name: 'mintlink_mint_api_call_duration_seconds',
      help: 'Latency of calls to the Mint service, retries included',
      labelNames: ['operation', 'status'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
  };
}
