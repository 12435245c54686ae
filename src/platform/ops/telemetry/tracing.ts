import { type Attributes, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { Logger } from './create-logger.js';

/**
 * The app's tracer, got once (OpenTelemetry makes a new proxy object on every `getTracer`): the API's proxy,
 * which reaches the SDK's tracer once startTracing has registered it.
 */
const TRACER = trace.getTracer('mintlink');

/**
 * Whether spans are exported. Until startTracing runs with an endpoint no span is made at all: even
 * OpenTelemetry's no-op spans cost each request allocations (a span, a context, closures) for nothing.
 */
let tracing = false;

export function tracer(): Tracer {
  return TRACER;
}

export function tracingStarted(): boolean {
  return tracing;
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
  tracing = true;
  logger.info({ endpoint }, 'exporting traces over OTLP');
  return async () => {
    await provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'could not flush the last traces'));
  };
}

/** Runs `work` in a span of its own (a child of the active one); a throw marks the span as an error. */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!tracing) return work();
  return TRACER.startActiveSpan(name, { kind, attributes }, async (span) => {
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
  if (!tracing) return;
  const end = Date.now();
  const span = TRACER.startSpan(name, { kind: SpanKind.CLIENT, attributes, startTime: end - durationMs });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
}

export { SpanKind };
