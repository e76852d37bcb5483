/**
 * The telemetry variables, beside config/env.ts (the other place that reads the environment):
 * OpenTelemetry traces over OTLP/HTTP (the standard `OTEL_*` variables) and the Temporal
 * runtime's metrics (`PERFLOW_METRICS_*`). Both are off unless their variables are set.
 */

import { redact, redactUrls } from './redact';

/** OTLP/HTTP encodings perflow exports traces in (`grpc` is refused). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export interface TracingConfig {
  /**
   * Where spans are POSTed: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else
   * `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended (the OTLP exporter's own rule).
   */
  url: string;
  /** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`. @default 'http/protobuf' */
  protocol: OtlpProtocol;
  /** The resource's `service.name`: `OTEL_SERVICE_NAME`. @default 'perflow-worker' or 'perflow-client' */
  serviceName: string;
  /**
   * The GenAI conventions' names: the latest with `OTEL_SEMCONV_STABILITY_OPT_IN` listing
   * `gen_ai_latest_experimental`; message content with
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. @default today's names, no content
   */
  genAi: { latest: boolean; captureContent: boolean };
}

/** The Temporal runtime's metrics exporter (one per process). */
export type MetricsConfig =
  /** `PERFLOW_METRICS_ADDRESS`: a Prometheus scrape endpoint, `/metrics` on `host:port`. */
  | { prometheus: { bindAddress: string } }
  /** `PERFLOW_METRICS_OTLP_ENDPOINT`: pushed to an OpenTelemetry collector every second. */
  | { otlp: { url: string; http: boolean } };

export interface TelemetryConfig {
  /** Spans of runs, model calls and tool calls. @default off: no interceptors, no exporter */
  traces?: TracingConfig;
  /** The runtime's metrics and perflow's counters (workers only). @default off */
  metrics?: MetricsConfig;
}

const trimmed = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

/** The general endpoint with the signal's path appended to its path (a query string stays a query string). */
function withSignalPath(endpoint: string, path: string): string {
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/${path}`;
  return url.toString();
}

function checkedUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name}="${redactUrls(value)}" is not a URL: use e.g. http://localhost:4318`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name}="${redact(value)}" must be an http:// or https:// URL (perflow exports OTLP over HTTP)`);
  }
  return url.toString();
}

/**
 * The trace exporter's settings; undefined (tracing off) unless `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, or when `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. The exporter itself reads `OTEL_EXPORTER_OTLP_HEADERS`,
 * `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_EXPORTER_OTLP_COMPRESSION` (and their `_TRACES_` forms);
 * the batch processor `OTEL_BSP_*`.
 */
export function tracingConfigFromEnv(env: NodeJS.ProcessEnv = process.env, defaultServiceName = 'perflow'): TracingConfig | undefined {
  if (trimmed(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporters = trimmed(env, 'OTEL_TRACES_EXPORTER');
  if (exporters !== undefined && exporters.split(',').every((e) => e.trim() === 'none')) return undefined;
  const specific = trimmed(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const general = trimmed(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (specific === undefined && general === undefined) return undefined;
  const url =
    specific !== undefined
      ? checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', specific)
      : withSignalPath(checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', general!), 'v1/traces');
  const protocolVar = trimmed(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = trimmed(env, protocolVar) ?? 'http/protobuf';
  if (protocol === 'grpc') {
    throw new Error(`${protocolVar}=grpc is not supported: perflow exports traces over OTLP/HTTP; use http/protobuf (the default) and the collector's HTTP port (4318)`);
  }
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new Error(`${protocolVar}="${protocol}" is not an OTLP protocol perflow exports: use http/protobuf (the default) or http/json`);
  }
  const genAi = {
    latest: (trimmed(env, 'OTEL_SEMCONV_STABILITY_OPT_IN') ?? '').split(',').some((v) => v.trim() === 'gen_ai_latest_experimental'),
    captureContent: trimmed(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase() === 'true',
  };
  return { url, protocol: protocol as OtlpProtocol, serviceName: trimmed(env, 'OTEL_SERVICE_NAME') ?? defaultServiceName, genAi };
}

/**
 * The runtime's metrics exporter: `PERFLOW_METRICS_ADDRESS` (`host:port`, Prometheus `/metrics`)
 * or `PERFLOW_METRICS_OTLP_ENDPOINT` (an OTLP/HTTP URL, `/v1/metrics` appended when it has no
 * path; `grpc://host:port` for OTLP/gRPC). Undefined when neither is set; both is an error.
 */
export function metricsConfigFromEnv(env: NodeJS.ProcessEnv = process.env): MetricsConfig | undefined {
  const address = trimmed(env, 'PERFLOW_METRICS_ADDRESS');
  const otlp = trimmed(env, 'PERFLOW_METRICS_OTLP_ENDPOINT');
  if (address !== undefined && otlp !== undefined) {
    throw new Error('set either PERFLOW_METRICS_ADDRESS (Prometheus) or PERFLOW_METRICS_OTLP_ENDPOINT (OTLP), not both: the Temporal runtime has one metrics exporter');
  }
  if (address !== undefined) {
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s/[\]]+):(\d{1,5})$/.exec(address);
    if (!m || Number(m[2]) > 65_535) throw new Error(`PERFLOW_METRICS_ADDRESS="${address}" must be host:port, e.g. 0.0.0.0:9464`);
    return { prometheus: { bindAddress: address } };
  }
  if (otlp !== undefined) {
    if (/^grpcs?:\/\//.test(otlp)) return { otlp: { url: otlp, http: false } };
    const url = new URL(checkedUrl('PERFLOW_METRICS_OTLP_ENDPOINT', otlp));
    if (url.pathname === '/') url.pathname = '/v1/metrics';
    return { otlp: { url: url.toString(), http: true } };
  }
  return undefined;
}

/** Traces and metrics from the environment, for a worker or a client (the client exports no metrics). */
export function telemetryConfigFromEnv(env: NodeJS.ProcessEnv = process.env, role: 'worker' | 'client' = 'worker'): TelemetryConfig {
  const traces = tracingConfigFromEnv(env, role === 'worker' ? 'perflow-worker' : 'perflow-client');
  const metrics = role === 'worker' ? metricsConfigFromEnv(env) : undefined;
  return { ...(traces ? { traces } : {}), ...(metrics ? { metrics } : {}) };
}

/** For the worker's start line. */
export function describeTelemetry(t: TelemetryConfig | undefined): string {
  const parts = [
    ...(t?.traces ? [`traces to ${redact(t.traces.url)} (${t.traces.protocol}, service ${t.traces.serviceName}${t.traces.genAi.latest ? ', GenAI conventions: latest' : ''}${t.traces.genAi.captureContent ? ', with message content' : ''})`] : []),
    ...(t?.metrics ? ['prometheus' in t.metrics ? `metrics on http://${t.metrics.prometheus.bindAddress}/metrics` : `metrics to ${redact(t.metrics.otlp.url)}`] : []),
  ];
  return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}
