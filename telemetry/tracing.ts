/**
 * The OpenTelemetry tracer provider of a perflow process (worker or client): spans batched and
 * exported over OTLP/HTTP, W3C trace context propagated through Temporal headers, and the
 * async-hooks context manager so spans opened in an activity nest under the activity's span.
 * One provider per process, registered globally while anyone uses it.
 */
import { context, diag, DiagConsoleLogger, DiagLogLevel, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import type { TracingConfig } from '../config/telemetry';

/** The instrumentation scope of perflow's own spans (model and tool calls, the CLI's). */
export const PERFLOW_TRACER_NAME = 'perflow';

export interface Tracing {
  config: TracingConfig;
  tracer: Tracer;
  resource: Resource;
  /** Receives every finished span, the workflow sandbox's included (through the worker's sink). */
  spanProcessor: SpanProcessor;
  /** Exports the spans still buffered and, once the last user has called it, unregisters the provider. */
  shutdown(): Promise<void>;
}

let shared: { tracing: Tracing; provider: BasicTracerProvider; users: number } | undefined;

/** The exporter of the configured protocol; the URL is given, headers, timeout and compression come from `OTEL_EXPORTER_OTLP_*`. */
export function otlpTraceExporter(config: TracingConfig): SpanExporter {
  return config.protocol === 'http/json' ? new OtlpJsonExporter({ url: config.url }) : new OtlpProtoExporter({ url: config.url });
}

/**
 * Starts exporting spans (or joins the process's provider when one is running) and registers it
 * as the global tracer provider, propagator and context manager. Call `shutdown()` at exit, or
 * the last batch of spans is lost.
 */
export function startTracing(config: TracingConfig): Tracing {
  if (shared) {
    shared.users++;
    return shared.tracing;
  }
  // Export failures (collector down, rejected batch) go to stderr instead of vanishing.
  diag.setLogger(new DiagConsoleLogger(), { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true });
  const resource = Resource.default()
    .merge(envDetectorSync.detect())
    .merge(new Resource({ 'service.name': config.serviceName }));
  const spanProcessor = new BatchSpanProcessor(otlpTraceExporter(config));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager() });
  let stopped: Promise<void> | undefined;
  const tracing: Tracing = {
    config,
    tracer: provider.getTracer(PERFLOW_TRACER_NAME),
    resource,
    spanProcessor,
    shutdown() {
      if (!shared || shared.tracing !== tracing) return stopped ?? Promise.resolve();
      if (--shared.users > 0) return provider.forceFlush();
      shared = undefined;
      stopped = provider.shutdown().finally(() => {
        trace.disable();
        context.disable();
        propagation.disable();
      });
      return stopped;
    },
  };
  shared = { tracing, provider, users: 1 };
  return tracing;
}

/** The client interceptor that opens a span per client call (`StartWorkflow:<type>`, …) and passes its context to the workflow in headers. */
export function workflowClientInterceptor(tracing: Tracing): OpenTelemetryWorkflowClientInterceptor {
  return new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer });
}
