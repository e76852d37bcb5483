/** A connection to Temporal that fails fast with a clear message, and links into the Web UI. */
import { Client, Connection } from '@temporalio/client';
import type { ClientConfig } from '../config/env';
import { firstLine } from '../core/text';
import { CliError } from './errors';

export interface PerflowClient {
  client: Client;
  config: ClientConfig;
  close(): Promise<void>;
}

/** Connects to Temporal (5 s timeout); an unreachable server becomes a one-line {@link CliError}. */
export async function connectClient(config: ClientConfig, connectTimeoutMs = 5_000): Promise<PerflowClient> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: connectTimeoutMs });
  } catch (err) {
    const why = firstLine(err);
    throw new CliError(
      `cannot reach the Temporal server at ${config.temporalAddress} (${why}): start it or set TEMPORAL_ADDRESS`,
      1,
      { cause: err },
    );
  }
  return {
    client: new Client({ connection, namespace: config.namespace }),
    config,
    close: () => connection.close(),
  };
}

/** The Temporal UI page of a workflow run. */
export function workflowUrl(config: ClientConfig, workflowId: string, runId?: string): string {
  const base = `${config.uiUrl}/namespaces/${encodeURIComponent(config.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}
