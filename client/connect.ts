/** A connection to Temporal that fails fast with a clear message, and links into the Web UI. */
import { Client, Connection } from '@temporalio/client';
import type { ClientConfig } from '../config/env';
import { temporalConnectOptions, type TemporalConnectOptions } from '../config/temporal-connection';
import { connectFailureMessage } from '../config/temporal-connect-failure';
import { firstLine } from '../core/text';
import { encryptionDataConverter } from '../codec/encryption';
import { PerflowError } from './errors';
import { mongoHandle, type StoresClient } from './stores';

/** The OpenTelemetry SDK, loaded only when tracing: it adds ~150 ms to every CLI command's start. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadTracing = () => require('../telemetry/tracing') as typeof import('../telemetry/tracing');

/**
 * What every function of perflow's client library that needs more than Temporal takes: the
 * Temporal client, the settings (task queues, encryption, MongoDB, …) and one MongoDB client,
 * connected on first use. Functions that only talk to Temporal take its `client`.
 */
export interface PerflowClient extends StoresClient {
  /** The Temporal client, with perflow's payload codec (and tracing, when configured). */
  client: Client;
  /** Closes the MongoDB client, the Temporal connection (when `connectClient` opened it) and exports the client's last spans (when tracing). */
  close(): Promise<void>;
}

/**
 * A PerflowClient over a Temporal client of your own (its connection stays yours: `close` closes
 * only the MongoDB client it opened). `connectClient` is the usual way to get one.
 */
export function perflowClient(client: Client, config: ClientConfig, onClose: () => Promise<void> = async () => undefined): PerflowClient {
  const stores = mongoHandle(config.mongoUri);
  return {
    client,
    config,
    mongo: stores.mongo,
    close: async () => {
      try {
        await stores.close();
      } finally {
        await onClose();
      }
    },
  };
}

/**
 * Connects to Temporal (5 s timeout) with the config's TLS, mTLS, API key and metadata; an
 * unreadable certificate file, an unreachable server or a failed TLS handshake becomes a
 * one-line {@link PerflowError} (`unavailable`) naming the problem and the setting to check.
 */
export async function connectClient(config: ClientConfig, connectTimeoutMs = 5_000): Promise<PerflowClient> {
  let options: TemporalConnectOptions;
  try {
    options = temporalConnectOptions(config.temporal);
  } catch (err) {
    throw new PerflowError('unavailable', firstLine(err), { cause: err });
  }
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: connectTimeoutMs, ...options });
  } catch (err) {
    throw new PerflowError('unavailable', await connectFailureMessage(config.temporalAddress, config.temporal, options, err, connectTimeoutMs), { cause: err });
  }
  // OTEL_EXPORTER_OTLP_*: starting a run opens the client span its workflow's spans hang under.
  const traces = config.telemetry?.traces;
  const otel = traces ? loadTracing() : undefined;
  const tracing = traces ? otel?.startTracing(traces) : undefined;
  const interceptors = otel && tracing ? { interceptors: { workflow: [otel.workflowClientInterceptor(tracing)] } } : {};
  // The encryption codec is always there: without keys it encrypts nothing and names the key an encrypted run needs.
  const client = new Client({ connection, namespace: config.namespace, dataConverter: encryptionDataConverter(config.encryption), ...interceptors });
  return perflowClient(client, config, async () => {
    try {
      await connection.close();
    } finally {
      await tracing?.shutdown();
    }
  });
}

/** The Temporal UI page of a workflow run. */
export function workflowUrl(config: ClientConfig, workflowId: string, runId?: string): string {
  const base = `${config.uiUrl}/namespaces/${encodeURIComponent(config.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
