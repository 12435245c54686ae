import { type Attributes, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { Logger } from './create-logger.js';

/**
 * The app's tracer while spans are exported, got once when tracing starts (OpenTelemetry makes a new proxy
 * object on every `getTracer`, and a proxy got before the SDK registered never reaches the SDK's tracer: the
 * bundle's copy of the API is not the SDK's). Until then no span is made at all: even OpenTelemetry's no-op
 * spans cost each request allocations (a span, a context, closures) for nothing.
 */
let exporting: Tracer | undefined;

/** The app's tracer: the exporting one, or OpenTelemetry's no-op tracer while tracing is off. */
export function tracer(): Tracer {
  return exporting ?? trace.getTracer('mintlink');
}

export function tracingStarted(): boolean {
  return exporting !== undefined;
}

/**
 * Exports spans over OTLP/HTTP when `endpoint` is set (the standard OTEL_EXPORTER_OTLP_ENDPOINT, and the
 * exporter's other OTEL_* variables). The SDK is loaded only then, so start-up pays nothing otherwise.
 * Returns how to flush and stop.
 */
export async function startTracing(endpoint: string | undefined, logger: Logger): Promise<() => Promise<void>> {
  if (!endpoint) return () => Promise.resolve();
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'mintlink' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register(); // the global tracer, with AsyncLocalStorage carrying the active span across awaits
  exporting = trace.getTracer('mintlink');
  logger.info({ endpoint }, 'exporting traces over OTLP');
  return async () => {
    await provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'could not flush the last traces'));
  };
}

/** Runs `work` in a span of its own (a child of the active one); a throw marks the span as an error. */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!exporting) return work();
  return exporting.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span for work that already ended (a database query, timed by Kysely), as a child of the active span. */
export function pastSpan(name: string, durationMs: number, attributes: Attributes, failed = false): void {
  if (!exporting) return;
  const end = Date.now();
  const span = exporting.startSpan(name, { kind: SpanKind.CLIENT, attributes, startTime: end - durationMs });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
}

export { SpanKind };
