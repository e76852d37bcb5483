/**
 * A worker's traces and metrics. Traces: the OpenTelemetry interceptors of
 * `@temporalio/interceptors-opentelemetry` — activity spans here, workflow spans from the
 * workflow interceptor module bundled into the workflow code and exported through a sink — so a
 * client's span, the run's workflow, its activities and its executor children form one trace.
 * Metrics: the Temporal runtime's exporter (Prometheus or OTLP), which must be installed before
 * the process makes its first connection.
 */
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import { Runtime, type TelemetryOptions, type WorkerOptions } from '@temporalio/worker';
import type { MetricsConfig } from '../config/telemetry';
import type { Tracing } from './tracing';

/**
 * The workflow interceptor modules a traced worker's workflow bundle includes. Bundled only when
 * tracing is on: the interceptors export spans through a sink that untraced workers do not have.
 * Histories recorded with and without them replay on either bundle (the interceptors add
 * headers, no commands).
 */
export const WORKFLOW_TRACING_MODULES: readonly string[] = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

/** The worker options that trace a worker's activities and export its workflows' spans. */
export function tracingWorkerOptions(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const options = { tracer: tracing.tracer };
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, options),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

/** The runtime's `telemetryOptions.metrics` for a metrics configuration (for a `Runtime.install` of your own). */
export function runtimeMetricsOptions(metrics: MetricsConfig): NonNullable<TelemetryOptions['metrics']> {
  return 'prometheus' in metrics ? { prometheus: { bindAddress: metrics.prometheus.bindAddress } } : { otel: { url: metrics.otlp.url, http: metrics.otlp.http } };
}

/**
 * Installs the Temporal runtime with the metrics exporter. Must run before the process's first
 * connection or worker; a process that installed its runtime already must pass
 * {@link runtimeMetricsOptions} to its own `Runtime.install` instead.
 */
export function installMetricsRuntime(metrics: MetricsConfig): void {
  if (Runtime._instance !== undefined) {
    throw new Error(
      'PERFLOW_METRICS_ADDRESS / PERFLOW_METRICS_OTLP_ENDPOINT need the Temporal runtime installed with a metrics exporter before any connection, ' +
        'but this process already has a runtime: pass runtimeMetricsOptions(config) to your own Runtime.install({ telemetryOptions: { metrics } })',
    );
  }
  Runtime.install({ telemetryOptions: { metrics: runtimeMetricsOptions(metrics) } });
}
