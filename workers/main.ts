/**
 * The perflow worker: connects to Temporal and MongoDB and runs the workflows and activities
 * on one task queue until SIGINT/SIGTERM.
 */
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { MongoClient, type MongoClientOptions } from 'mongodb';
import { nexusAgentsHandler } from './nexus-agents';
import { NEXUS_AGENTS_SERVICE } from '../core/nexus-agents';
import { createActivities, MODEL_ACTIVITY_NAMES } from '../activities';
import { allMemoryCollections, DEFAULT_COLLECTIONS, type MemoryCollections } from '../core/memory-collections';
import { MemoryStore } from '../stores/store';
import { builtinTools } from '../activities/tools/builtin';
import { toolRegistry, type Tool } from '../activities/tools/tool';
import { describeWorkerConfig, modelPricesFromEnv, providerConfigFromEnv, redact, workerConfigFromEnv, workerPolicyFromEnv, type PerflowWorkerConfig } from '../config/env';
import { setOperatorPrices } from '../telemetry/model-prices';
import { modelAdapters } from '../activities/llm/adapters';
import { operatorEndpoints } from '../core/worker-policy';
import type { ModelAdapter } from '../activities/llm/adapter';
import type { RecordedRequest } from '../activities/llm/scripted';
import { firstLine } from '../core/text';
import { temporalConnectOptions } from '../config/temporal-connection';
import { connectFailureMessage } from '../config/temporal-connect-failure';
import { encryptionDataConverter, textSealer } from '../codec/encryption';
import { noRunEventSinks, runEventSinks } from './run-event-sink';
import { describeWorkflowSource, workflowCode, workflowSource, type WorkflowSource } from './workflow-source';
import { describeTelemetry } from '../config/telemetry';
import type { Tracing } from '../telemetry/tracing';
import { missingSearchAttributes, searchAttributeCreateCommand } from '../workflows/definitions';

export interface PerflowWorker {
  worker: Worker;
  config: PerflowWorkerConfig;
  /** The worker's MongoDB client (memory and the MongoDB tools), e.g. to watch its commands. */
  mongo: MongoClient;
  /** perflow's search attributes the namespace lacks (runs go on without them; `runWorker` says which, and how to add them). */
  missingSearchAttributes: string[];
  /** Runs until shutdown, then closes the connections. */
  run(): Promise<void>;
  /** Asks the worker to stop (in-flight tasks get the grace time). */
  shutdown(): void;
}

/** The tools the worker offers agents: the built-in ones, with MongoDB tools on the worker's database. */
export function workerTools(mongo: MongoClient, database: string, memory: MemoryCollections = DEFAULT_COLLECTIONS): Tool<never>[] {
  return builtinTools({ mongo, defaultDb: database, protectedCollections: allMemoryCollections(memory) });
}

export interface CreateWorkerOptions extends PerflowWorkerConfig {
  /** Tools of your own, offered beside the built-in ones (see {@link defineTool}); agent files name them by `type`. */
  tools?: Tool<never>[];
  /** Model adapters of your own, beside the built-in ones (docs/extending.md); agent files name them by `llm.interface`. */
  modelAdapters?: readonly ModelAdapter[];
  /** Where the scripted model records the requests it receives (tests read it). */
  recorder?: RecordedRequest[];
  /**
   * Where the workflow code comes from: default the package's prebuilt bundle, else the sources
   * (with tracing on, the traced bundle, or the sources bundled with `WORKFLOW_TRACING_MODULES`;
   * a bundle given here must include those modules for workflow spans).
   */
  workflows?: WorkflowSource;
  /** Activities besides perflow's (a workflows module of your own that calls them). */
  extraActivities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** MongoDB client options besides the URI's (e.g. `{ monitorCommands: true }`). */
  mongoOptions?: MongoClientOptions;
  /** Serve the agent files of this folder as the Nexus service `perflow-agents` (their `NexusAgentTool` callers run them here). */
  nexusAgentsDir?: string;
  /**
   * `false`: the worker writes no run event streams (watchers of its runs see nothing). For
   * measuring what live output costs (`npm run bench`); a fleet where some workers stream and
   * others do not leaves streams with holes in them.
   */
  runEvents?: false;
  /** Worker tuning passed to the Temporal SDK (e.g. `maxConcurrentActivityTaskExecutions`). */
  tuning?: Pick<WorkerOptions, 'maxConcurrentWorkflowTaskExecutions' | 'maxConcurrentActivityTaskExecutions' | 'maxCachedWorkflows'>;
}

/** A tool of your own, typed by its input schema, ready for {@link CreateWorkerOptions.tools}. */
export function defineTool<Input>(tool: Tool<Input>): Tool<never> {
  return tool as unknown as Tool<never>;
}

/**
 * The OpenTelemetry SDK and interceptors (~0.5 s of CPU to load), only for a worker that exports
 * traces or metrics.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadTelemetry = () => ({ ...(require('../telemetry/tracing') as typeof import('../telemetry/tracing')), ...(require('../telemetry/worker') as typeof import('../telemetry/worker')) });

/**
 * Connects and creates (but does not run) a worker. Temporal and MongoDB (with its indexes) are
 * reached at once, and the namespace's search attributes are read while the workflow code loads.
 */
export async function createWorker(config: CreateWorkerOptions): Promise<PerflowWorker> {
  const telemetry = config.telemetry?.metrics || config.telemetry?.traces ? loadTelemetry() : undefined;
  // PERFLOW_METRICS_*: the runtime's metrics exporter exists before the process's first connection.
  if (config.telemetry?.metrics) telemetry?.installMetricsRuntime(config.telemetry.metrics);
  // TLS, mTLS, API key: a bad certificate file or a failed handshake throws one line naming the setting.
  const options = temporalConnectOptions(config.temporal);
  const mongo = new MongoClient(config.mongoUri, { serverSelectionTimeoutMS: 5_000, ...config.mongoOptions });
  const memory = new MemoryStore(mongo.db(config.database), config.collections ?? DEFAULT_COLLECTIONS);
  const mongoReady = mongo
    .connect()
    .catch((err: unknown) => {
      throw new Error(`cannot reach MongoDB at ${redact(config.mongoUri)} (${firstLine(err)}): start it or set MONGODB_URI`, { cause: err });
    })
    .then(() => memory.ensureIndexes());
  // Settled here too, so a failure while Temporal is still being reached is not left unhandled.
  mongoReady.catch(() => undefined);
  const connection = await NativeConnection.connect({ address: config.temporalAddress, ...options }).catch(async (err: unknown) => {
    await mongo.close().catch(() => undefined);
    throw new Error(await connectFailureMessage(config.temporalAddress, config.temporal, options, err), { cause: err });
  });
  let tracing: Tracing | undefined;
  try {
    const tools = [...workerTools(mongo, config.database, memory.collections), ...(config.tools ?? [])];
    const providers = config.providers ?? providerConfigFromEnv();
    const llm = modelAdapters({ providers, ...(config.recorder ? { recorder: config.recorder } : {}) }, config.modelAdapters);
    const policy = config.policy ?? workerPolicyFromEnv();
    // What calls cost where the price table says nothing (and what a capped tenant may call).
    setOperatorPrices(config.modelPrices ?? modelPricesFromEnv());
    // OTEL_EXPORTER_OTLP_*: spans of workflows, activities, model and tool calls.
    tracing = config.telemetry?.traces ? telemetry?.startTracing(config.telemetry.traces) : undefined;
    const traced: Pick<WorkerOptions, 'interceptors' | 'sinks'> = tracing && telemetry ? telemetry.tracingWorkerOptions(tracing) : {};
    // Runs' event streams: sealed like payloads when PERFLOW_ENCRYPTION_KEYS is set.
    const events = config.runEvents === false ? undefined : memory.eventLog(config.encryption ? textSealer(config.encryption) : undefined);
    const activities = createActivities({
      tools: toolRegistry(tools),
      memory,
      events,
      llm,
      secret: providers.secret,
      policy,
      // Read at call time, as the providers read them.
      operator: () => operatorEndpoints((variable) => providers.setting(variable)),
      ...(tracing ? { tracer: tracing.tracer, genAi: tracing.config.genAi } : {}),
    });
    // PERFLOW_ENCRYPTION_KEYS: inputs, results, queries, updates, memos and failures (messages,
    // stack traces, details) encrypted in history. Without keys the codec encrypts nothing; the
    // failure converter is the workflow bundle's either way (failure messages as a payload).
    const dataConverter = { dataConverter: encryptionDataConverter(config.encryption) };
    // A worker is created only on a reachable MongoDB (one created and never run would hold the process).
    await mongoReady;
    const searchAttributes = connection.operatorService.listSearchAttributes({ namespace: config.namespace });
    searchAttributes.catch(() => undefined);
    const worker = await Worker.create({
      connection,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      ...(await workflowCode(config.workflows ?? workflowSource({ traced: !!tracing }), tracing && telemetry ? { interceptorModules: telemetry.WORKFLOW_TRACING_MODULES } : {})),
      activities: { ...activities, ...config.extraActivities },
      ...traced,
      sinks: { ...traced.sinks, ...(events ? runEventSinks(events, (message, attrs) => Runtime.instance().logger.warn(message, attrs)) : noRunEventSinks()) },
      ...dataConverter,
      ...(config.nexusAgentsDir ? { nexusServices: [nexusAgentsHandler(config.nexusAgentsDir)] } : {}),
      // A versioned worker's runs are pinned to its version (they move at a step boundary once the current version changes).
      ...(config.deployment
        ? { workerDeploymentOptions: { version: { deploymentName: config.deployment.name, buildId: config.deployment.buildId }, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' as const } }
        : {}),
      shutdownGraceTime: '10 seconds',
      ...config.tuning,
    });
    // Model calls on their own queue: the server enforces the rate across the whole fleet.
    const llmWorker = config.llm
      ? await Worker.create({
          connection,
          namespace: config.namespace,
          taskQueue: config.llm.taskQueue,
          activities: Object.fromEntries(MODEL_ACTIVITY_NAMES.map((name) => [name, activities[name]])),
          ...(traced.interceptors ? { interceptors: traced.interceptors } : {}),
          ...(config.llm.ratePerSecond ? { maxTaskQueueActivitiesPerSecond: config.llm.ratePerSecond } : {}),
          ...(config.llm.concurrency ? { maxConcurrentActivityTaskExecutions: config.llm.concurrency } : {}),
          ...dataConverter,
          shutdownGraceTime: '10 seconds',
        })
      : undefined;
    const workers = [worker, ...(llmWorker ? [llmWorker] : [])];
    const registered = await searchAttributes;
    const missing = missingSearchAttributes(Object.keys(registered.customAttributes ?? {}));
    const client = mongo;
    const workerTracing = tracing;
    return {
      worker,
      config,
      mongo: client,
      missingSearchAttributes: missing,
      async run() {
        try {
          // One worker failing stops the other: the process never serves half of perflow.
          const stopAll = () => workers.forEach((w) => w.getState() === 'RUNNING' && w.shutdown());
          await Promise.all(workers.map((w) => w.run().catch((err: unknown) => (stopAll(), Promise.reject(err)))));
        } finally {
          llm.close();
          await connection.close();
          await client.close();
          // The last spans (the runs' ends) are exported before the process exits.
          await workerTracing?.shutdown();
        }
      },
      shutdown() {
        // The SDK's runtime also stops workers on these signals; a second request is harmless.
        for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      },
    };
  } catch (err) {
    await connection.close().catch(() => undefined);
    await mongoReady.catch(() => undefined);
    await mongo.close().catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    throw err;
  }
}

/** What a worker says when the namespace lacks some of perflow's search attributes: which, what goes without them, and the command that adds them. */
export function missingSearchAttributesLine(missing: readonly string[], namespace: string): string {
  return `perflow worker: namespace ${namespace} lacks the search attribute${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: runs go on without ${missing.length > 1 ? 'them' : 'it'} (perflow pending, list --agent, --tenant and --fingerprint, eval, a second message to a busy conversation and the UI's filters need them); add them with: ${searchAttributeCreateCommand(missing, namespace)}`;
}

/** Runs a worker configured from the environment; stops gracefully on SIGINT/SIGTERM. */
export async function runWorker(env: NodeJS.ProcessEnv = process.env, extra: Pick<CreateWorkerOptions, 'nexusAgentsDir'> = {}): Promise<void> {
  const config = workerConfigFromEnv(env);
  const w = await createWorker({ ...config, ...extra });
  if (extra.nexusAgentsDir) console.log(`perflow worker serves the agent files of ${extra.nexusAgentsDir} as the Nexus service ${NEXUS_AGENTS_SERVICE} (operation runAgent)`);
  console.log(`perflow worker connected: ${describeWorkerConfig(config)}${describeTelemetry(config.telemetry)}; ${describeWorkflowSource(workflowSource({ traced: !!config.telemetry?.traces }))}`);
  if (w.missingSearchAttributes.length > 0) console.warn(missingSearchAttributesLine(w.missingSearchAttributes, config.namespace));
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      console.log(`perflow worker: ${sig} received, shutting down (grace 10 s)`);
      w.shutdown();
    });
  }
  await w.run();
  console.log('perflow worker stopped');
}
