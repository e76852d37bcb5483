/** A Temporal server to talk to: the environment's TEMPORAL_ADDRESS, else a dev server we start. */
import { Connection } from '@temporalio/client';
import { findTemporalCli, log } from './binaries';
import { freePort, startProcess, waitUntilHealthy, type ServerProcess } from './process';
import { namedServersFromEnv } from '../config/env';
import { firstLine } from '../core/text';

export interface TemporalServer {
  address: string;
  namespace: string;
  /** The Web UI base URL when we started the server (undefined for an external one). */
  uiUrl?: string;
  /** Stops the server if we started it. */
  stop(): Promise<void>;
}

export interface TemporalStartOptions {
  port?: number;
  uiPort?: number;
  /** Persist state in this SQLite file, so the server can be restarted with its runs. */
  dbFilename?: string;
  /** Extra `--dynamic-config-value` entries, e.g. `limit.historyCount.suggestContinueAsNew=40`. */
  dynamicConfig?: string[];
  /** The search attributes to register (default: all of perflow's), e.g. to try a server set up before some existed. */
  searchAttributes?: ReadonlyArray<keyof typeof SEARCH_ATTRIBUTES>;
}

/** Search attributes perflow sets on its runs; registered on the dev servers we start. */
export const SEARCH_ATTRIBUTES = { PerflowAgent: 'Keyword', PerflowStatus: 'Keyword', PerflowPending: 'Keyword', PerflowTenant: 'Keyword', PerflowEval: 'Keyword', PerflowFingerprint: 'Keyword', PerflowMemory: 'Keyword' } as const;

export async function checkTemporal(address: string, namespace: string, timeoutMs = 3_000): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: timeoutMs });
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } finally {
    await connection.close();
  }
}

export async function startTemporal(env: NodeJS.ProcessEnv, options: TemporalStartOptions = {}): Promise<TemporalServer> {
  const { temporalAddress: external, namespace } = namedServersFromEnv(env);
  if (external) {
    try {
      await checkTemporal(external, namespace);
    } catch (err) {
      throw new Error(
        `cannot reach Temporal at TEMPORAL_ADDRESS=${external} (namespace ${namespace}): ${firstLine(err)}`,
      );
    }
    log(`using Temporal at ${external} (TEMPORAL_ADDRESS)`);
    return { address: external, namespace, stop: async () => undefined };
  }
  return startTemporalDevServer(env, options);
}

/** Always starts a dev server (ignoring TEMPORAL_ADDRESS): for tests that stop and restart one. */
export async function startTemporalDevServer(env: NodeJS.ProcessEnv, options: TemporalStartOptions = {}): Promise<TemporalServer> {
  const { namespace } = namedServersFromEnv(env);
  const cli = findTemporalCli(env, { install: true });
  if (!cli) return startWithSdkDownload(namespace, options);
  return startDevServer(cli, namespace, options, env);
}

async function startDevServer(cli: string, namespace: string, options: TemporalStartOptions, env: NodeJS.ProcessEnv): Promise<TemporalServer> {
  const port = options.port ?? (await freePort());
  const uiPort = options.uiPort ?? (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--ui-port', String(uiPort)];
  args.push('--namespace', namespace, '--log-level', 'warn');
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  for (const name of options.searchAttributes ?? (Object.keys(SEARCH_ATTRIBUTES) as Array<keyof typeof SEARCH_ATTRIBUTES>)) args.push('--search-attribute', `${name}=${SEARCH_ATTRIBUTES[name]}`);
  for (const value of options.dynamicConfig ?? []) args.push('--dynamic-config-value', value);
  const proc: ServerProcess = startProcess(cli, args, { env });
  const address = `127.0.0.1:${port}`;
  await waitUntilHealthy('Temporal dev server', proc, () => checkTemporal(address, namespace, 2_000));
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  log(`Temporal dev server ${cli} (${versionOf(cli)}) on ${address}, Web UI ${uiUrl}`);
  return { address, namespace, uiUrl, stop: () => proc.stop() };
}

/** Last resort where the internet is reachable: the SDK downloads a dev server itself. */
async function startWithSdkDownload(namespace: string, options: TemporalStartOptions): Promise<TemporalServer> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  log('no Temporal CLI found (TEMPORAL_CLI_PATH, PATH, pip); letting the SDK download a dev server');
  const uiPort = options.uiPort ?? (await freePort());
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      namespace,
      ui: true,
      uiPort,
      dbFilename: options.dbFilename,
      searchAttributes: Object.keys(SEARCH_ATTRIBUTES).map((name) => ({ name, type: 'KEYWORD' as const })),
    },
  });
  const address = env.connection.options.address;
  return { address, namespace, uiUrl: `http://127.0.0.1:${uiPort}`, stop: () => env.teardown() };
}

function versionOf(cli: string): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
    return execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown version';
  }
}

