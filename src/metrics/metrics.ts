import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The app's Prometheus metrics, on a registry of their own (one per app instance, none global). */
export interface Metrics {
  registry: Registry;
  commandsHandled: Counter<'subcommand' | 'outcome'>;
  /** Requests answered "busy" because the work budget was full, by kind (command, action, view...). */
  busyRefusals: Counter<'kind'>;
  mintApiCalls: Counter<'operation' | 'status'>;
  mintApiDuration: Histogram<'operation' | 'status'>;
}

export interface MetricSources {
  /** Work in flight now (the admission budget's count). */
  workInFlight: () => number;
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
  return {
    registry,
    commandsHandled: new Counter({
      name: 'mintlink_commands_handled_total',
      help: 'Slash commands handled, by subcommand and outcome',
      labelNames: ['subcommand', 'outcome'],
      registers: [registry],
    }),
    busyRefusals: new Counter({
      name: 'mintlink_busy_refusals_total',
      help: 'Requests answered "busy, try again" because the work budget was full, by kind',
      labelNames: ['kind'],
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
