import { describeError } from '../../../client/errors';
import { redact, redactUrls } from '../../../config/redact';
import { describeTelemetry, telemetryConfigFromEnv } from '../../../config/telemetry';

describe('secrets out of what perflow prints', () => {
  it('masks passwords of connection strings, tokens in http user info, and secret query parameters', () => {
    expect(redact('mongodb://u:secret@h:1/db?authSource=admin')).toBe('mongodb://u:***@h:1/db?authSource=admin');
    expect(redact('mongodb+srv://app:p%40ss@cluster0.example.net/perflow?retryWrites=true')).toBe('mongodb+srv://app:***@cluster0.example.net/perflow?retryWrites=true');
    expect(redact('postgres://perflow:hunter2@127.0.0.1:5432/ferretdb')).toBe('postgres://perflow:***@127.0.0.1:5432/ferretdb');
    expect(redact('https://ghp_abc123@collector.example/v1/traces')).toBe('https://***@collector.example/v1/traces');
    expect(redact('https://otlp.example/v1/traces?api_key=K1&region=eu&token=T&X-Amz-Signature=S&sig=x&Password=p')).toBe(
      'https://otlp.example/v1/traces?api_key=***&region=eu&token=***&X-Amz-Signature=***&sig=***&Password=***',
    );
    expect(redact('mongodb://localhost:27017/perflow')).toBe('mongodb://localhost:27017/perflow');
  });

  it('masks every URL in a text, and so every CLI error message', () => {
    expect(redactUrls('cannot reach mongodb://u:pw@h/db or https://x.example/?access_key=A (twice)')).toBe('cannot reach mongodb://u:***@h/db or https://x.example/?access_key=*** (twice)');
    expect(describeError(new Error('fetch https://svc.example/api?token=abc failed')).message).toBe('fetch https://svc.example/api?token=*** failed');
  });

  it("masks the OTLP endpoint in the worker's start line and in the error for a bad one", () => {
    const t = telemetryConfigFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:pw@otlp.example/v1/traces?api-key=SECRET' });
    expect(describeTelemetry(t)).toBe('; traces to https://user:***@otlp.example/v1/traces?api-key=*** (http/protobuf, service perflow-worker)');
    expect(() => telemetryConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://u:pw@x.example/?token=T' })).toThrow('OTEL_EXPORTER_OTLP_ENDPOINT="ftp://u:***@x.example/?token=***" must be an http:// or https:// URL');
  });
});
