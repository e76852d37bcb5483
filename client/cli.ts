/**
 * The `perflow` command line: a thin shell over the client library. With `--json` a command
 * prints exactly one JSON document on stdout; everything else (progress, notes) goes to stderr.
 * Heavy modules (the worker, replay) load only for the commands that need them, so the CLI
 * starts fast.
 */
import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import type { RunOutput } from '../workflows/definitions';
import { clientConfigFromEnv, codecTokenFromEnv, type ClientConfig } from '../config/env';
import { encryptionDataConverter, encryptionKeyIdsIn, missingKeyMessage } from '../codec/encryption';
import { startCodecServer } from './codec-server';
import { connectClient, workflowUrl, type PerflowClient } from './connect';
import { CliError, describeError } from './errors';
import {
  cancelRun,
  fetchHistory,
  getResult,
  getStatus,
  historyWorkflowId,
  listRuns,
  parseResetTarget,
  readHistoryFile,
  replayHistory,
  resetRun,
  runSummary,
  writeHistoryFile,
  type ListStatus,
} from './ops';
import { followRun, loadAgentFile, parseParams, pendingLines, startRun, type StartedRun } from './run';
import { forkRun } from './fork';
import { diffRuns, formatDiff } from './diff';
import { approvePlan, approveTool, denyTool, guideRun, listPending, pauseRun, readStepsFile, rejectPlan, resumeRun } from './decisions';
import type { DecisionRecord } from '../workflows/definitions';

import { formatConversation } from '../memory/conversation';
import { assertMemoryExists, readMemory } from './memory';

const USAGE = `usage: perflow <command> [options]
  worker                                   run a worker (env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_*, TEMPORAL_API_KEY, TEMPORAL_PROFILE, PERFLOW_TASK_QUEUE, MONGODB_URI)
  run --agent FILE [--question TEXT] [--memory-id ID] [--param key=value]... [--follow|--wait] [--json]
  status ID [--json]                       progress of a run
  result ID [--json]                       result of a run (waits for it)
  list [--status running|completed|failed] [--agent NAME] [--tenant ID] [--json]  runs
  cancel ID [--json]                       cancel a run
  memory MEMORY_ID [--tenant ID] [--json]  a conversation from MongoDB: questions, steps, tool calls, results
  history ID --out FILE [--json]           save a run's event history as JSON
  replay ID | --history FILE [--workflow-id ID] [--workflows PATH] [--json]  replay a history against the current workflow code (or the workflows module at PATH)
  reset ID [--to last-workflow-task|first-workflow-task|failed-activity|EVENT_ID] [--reason TEXT] [--json]
  fork ID --from-step N [--agent FILE] [--param key=value]... [--question TEXT] [--workflow-id ID] [--follow|--wait] [--json]
                                           a new run reusing ID's first N-1 steps, then planning at step N with the new settings
  diff A B [--json]                        two runs side by side: settings, plans, steps, tokens, durations, responses
  pending [--json]                         runs waiting for a person's decision (or paused)
  approve ID [--steps-file F | --step TEXT...]  approve the plan awaiting approval (with steps: an edited plan)
  reject ID --reason TEXT [--stop]         reject the plan: the planner is asked again with the reason (--stop: end the run)
  approve-tool ID [--input JSON]           approve the tool call awaiting approval (with --input: run it with that input)
  deny-tool ID --reason TEXT               deny the tool call: the model gets the reason as its observation
  guide ID TEXT                            guidance for the next planning call
  pause ID | resume ID                     hold the run at its next point between steps / let it go on
  codec-server [--port P] [--host H] [--ui-origin URL]... [--token T]
                                           serve /encode and /decode for the Temporal Web UI with PERFLOW_ENCRYPTION_KEYS
                                           (default port 8888 on 127.0.0.1; CORS for PERFLOW_TEMPORAL_UI_URL's origin;
                                           token also from PERFLOW_CODEC_TOKEN); stops on Ctrl-C
  (decision commands take --by NAME, recorded with the decision, and --json)
Options for all: --json (one JSON document on stdout), --verbose (stack traces), --help`;

const out = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);
const printJson = (value: unknown) => out(JSON.stringify(value, null, 2));

/** The workflow ID the command is about, for error messages. */
let currentWorkflowId: string | undefined;

function requireId(positionals: string[], command: string): string {
  const id = positionals[0];
  if (!id) throw new CliError(`${command} needs a workflow ID: perflow ${command} ID`, 2);
  currentWorkflowId = id;
  return id;
}

async function withClient<T>(config: ClientConfig, fn: (c: PerflowClient) => Promise<T>): Promise<T> {
  const c = await connectClient(config);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

const OPTIONS = {
  agent: { type: 'string' },
  question: { type: 'string' },
  'memory-id': { type: 'string' },
  param: { type: 'string', multiple: true },
  follow: { type: 'boolean' },
  wait: { type: 'boolean' },
  json: { type: 'boolean' },
  status: { type: 'string' },
  out: { type: 'string' },
  history: { type: 'string' },
  'workflow-id': { type: 'string' },
  workflows: { type: 'string' },
  to: { type: 'string' },
  reason: { type: 'string' },
  tenant: { type: 'string' },
  step: { type: 'string', multiple: true },
  'steps-file': { type: 'string' },
  stop: { type: 'boolean' },
  input: { type: 'string' },
  by: { type: 'string' },
  'from-step': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'ui-origin': { type: 'string', multiple: true },
  token: { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let config: ClientConfig;
  try {
    config = clientConfigFromEnv(env);
  } catch (err) {
    // A malformed setting (e.g. PERFLOW_ENCRYPTION_KEYS): one line, before anything runs.
    process.stderr.write(`perflow: ${describeError(err).message}\n`);
    return 2;
  }
  let verbose = argv.includes('--verbose');
  try {
    const [command, ...rest] = argv;
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      out(USAGE);
      return command ? 0 : 2;
    }
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (err) {
      throw new CliError(`${(err as Error).message} (perflow --help)`, 2);
    }
    const { values: o, positionals } = parsed;
    verbose = o.verbose ?? false;
    if (o.help) {
      out(USAGE);
      return 0;
    }
    switch (command) {
      case 'worker': {
        // Loaded only here: the worker package is heavy. (`require`, as the checkout's tsx hook is CommonJS only.)
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { runWorker } = require('../workers/main') as typeof import('../workers/main');
        await runWorker(env);
        return 0;
      }
      case 'run': {
        if (!o.agent) throw new CliError('run needs --agent FILE', 2);

        if (o.follow && o.wait) throw new CliError('use either --follow or --wait, not both', 2);
        const { agent, parameters } = await loadAgentFile(o.agent, parseParams(o.param ?? []), { extraToolTypes: config.extraToolTypes });
        const question = o.question ?? parameters.question;
        if (!question) throw new CliError('run needs --question TEXT (or a question parameter)', 2);
        const memoryId = o['memory-id'] ?? parameters.memory_id;
        if (memoryId !== undefined) await assertMemoryExists(env, memoryId);
        return await withClient(config, async ({ client }) => {
          const run = await startRun(client, { agent, parameters, question, taskQueue: config.taskQueue, memoryId, llmTaskQueue: config.llmTaskQueue });
          return report(client, config, run, o);
        });
      }
      case 'fork': {
        const id = requireId(positionals, 'fork');
        if (o['from-step'] === undefined) throw new CliError('fork needs --from-step N', 2);
        const fromStep = Number(o['from-step']);
        if (!Number.isInteger(fromStep) || fromStep < 1) throw new CliError(`--from-step expects a step number from 1, got "${o['from-step']}"`, 2);
        if (o.follow && o.wait) throw new CliError('use either --follow or --wait, not both', 2);
        const params = parseParams(o.param ?? []);
        const agent = o.agent ? (await loadAgentFile(o.agent, params, { extraToolTypes: config.extraToolTypes })).agent : undefined;
        return await withClient(config, async ({ client }) => {
          const run = await forkRun(client, id, {
            fromStep,
            ...(agent ? { agent } : {}),
            params,
            ...(o.question !== undefined ? { question: o.question } : {}),
            ...(o['workflow-id'] !== undefined ? { workflowId: o['workflow-id'] } : {}),
            taskQueue: config.taskQueue,
            ...(config.llmTaskQueue ? { llmTaskQueue: config.llmTaskQueue } : {}),
          });
          return report(client, config, run, o);
        });
      }
      case 'status': {
        const id = requireId(positionals, 'status');
        return await withClient(config, async ({ client }) => {
          const p = await getStatus(client, id);
          if (o.json) printJson({ workflow_id: id, ...p });
          else {
            out(`${id}: ${p.status} (agent ${p.agent}, steps ${p.steps_executed}/${p.max_steps}, tokens in ${p.usage.input_tokens} / out ${p.usage.output_tokens})`);
            p.plan.forEach((s, i) => out(`  plan ${i + 1}. ${s}`));
            for (const c of p.current_steps ?? (p.current_step ? [p.current_step] : [])) out(`  running step ${c.index + 1}: ${c.step} (executor ${c.executor_workflow_id})`);
            for (const s of p.completed_steps) out(`  ${s.ok ? 'done' : 'failed'} step ${s.index + 1}: ${s.step} → ${s.result_preview.replace(/\s+/g, ' ').slice(0, 200)}`);
            for (const d of p.pending ?? []) pendingLines(d).forEach((l) => out(`  ${l}`));
            if (p.paused) out(`  paused: resume with perflow resume ${id}`);
            if (p.result !== undefined) out(`  result: ${p.result}`);
            if (p.error !== undefined) out(`  error: ${p.error}`);
          }
          return 0;
        });
      }
      case 'result': {
        const id = requireId(positionals, 'result');
        return await withClient(config, async ({ client }) => {
          const result = await getResult(client, id);
          out(o.json ? JSON.stringify(result, null, 2) : result.response);
          return 0;
        });
      }
      case 'list': {
        const status = o.status as ListStatus | undefined;
        if (status !== undefined && !['running', 'completed', 'failed'].includes(status)) {
          throw new CliError(`--status must be running, completed or failed, got "${status}"`, 2);
        }
        return await withClient(config, async ({ client }) => {
          const runs = (await listRuns(client, status, 100, o.agent)).filter((wf) => o.tenant === undefined || wf.memo?.tenant_id === o.tenant);
          if (o.json) printJson(runs.map(runSummary));
          else for (const wf of runs) out(`${wf.workflowId}\t${wf.status.name}\t${wf.startTime.toISOString()}\t${wf.runId}`);
          return 0;
        });
      }
      case 'memory': {
        const id = requireId(positionals, 'memory');
        const view = await readMemory(env, id, o.tenant);
        if (!view) throw new CliError(`memory_id ${id} not found in MongoDB (MONGODB_URI)${o.tenant !== undefined ? ` for tenant ${o.tenant}` : ''}`, 1);
        out(o.json ? JSON.stringify(view, null, 2) : formatConversation(view));
        return 0;
      }
      case 'cancel': {
        const id = requireId(positionals, 'cancel');
        return await withClient(config, async ({ client }) => {
          await cancelRun(client, id);
          if (o.json) printJson({ workflow_id: id, cancel_requested: true });
          else out(`cancellation requested for ${id}`);
          return 0;
        });
      }
      case 'history': {
        const id = requireId(positionals, 'history');
        if (!o.out) throw new CliError('history needs --out FILE', 2);
        const file = o.out;
        return await withClient(config, async ({ client }) => {
          const h = await fetchHistory(client, id);
          await writeHistoryFile(file, h, id);
          if (o.json) printJson({ workflow_id: id, file: resolvePath(file), events: h.events?.length ?? 0 });
          else out(`wrote ${h.events?.length ?? 0} events to ${file}`);
          return 0;
        });
      }
      case 'replay': {
        let history: unknown;
        let workflowId = 'replay';
        if (o.history) {
          const read = await readHistoryFile(o.history);
          history = read.history;
          workflowId = historyWorkflowId(o.history, read.workflowId, o['workflow-id']);
        } else {
          workflowId = requireId(positionals, 'replay');
          history = await withClient(config, ({ client }) => fetchHistory(client, workflowId));
        }
        // An encrypted history needs its keys: say which, rather than fail the replay's workflow task.
        const missing = [...encryptionKeyIdsIn(history)].find((id) => !config.encryption?.keys.has(id));
        if (missing !== undefined) throw new CliError(missingKeyMessage(missing, config.encryption), 1);
        const problem = await replayHistory(history, workflowId, o.workflows ? resolvePath(o.workflows) : undefined, encryptionDataConverter(config.encryption));
        if (o.json) printJson({ workflow_id: workflowId, deterministic: problem === undefined, ...(problem ? { problem } : {}) });
        else out(problem ? `replay failed: ${problem}` : 'replay ok: the history is deterministic with the current workflow code');
        return problem ? 3 : 0;
      }
      case 'reset': {
        const id = requireId(positionals, 'reset');
        const target = parseResetTarget(o.to);
        return await withClient(config, async ({ client }) => {
          const r = await resetRun(client, id, target, o.reason ?? 'perflow reset');
          const ui = workflowUrl(config, id, r.runId);
          if (o.json) printJson({ workflow_id: id, run_id: r.runId, reset_to_event: r.eventId, ui_url: ui });
          else {
            out(`reset ${id} to event ${r.eventId}: new run_id ${r.runId}`);
            out(`ui: ${ui}`);
          }
          return 0;
        });
      }
      case 'diff': {
        const [a, b] = positionals;
        if (!a || !b) throw new CliError('diff needs two workflow IDs: perflow diff A B', 2);
        currentWorkflowId = a;
        return await withClient(config, async ({ client }) => {
          const d = await diffRuns(client, a, b);
          out(o.json ? JSON.stringify(d, null, 2) : formatDiff(d));
          return 0;
        });
      }
      case 'pending': {
        return await withClient(config, async ({ client }) => {
          const runs = await listPending(client);
          if (o.json) printJson(runs);
          else if (runs.length === 0) out('no run is waiting for a decision');
          else {
            for (const r of runs) {
              out(`${r.workflow_id}\t${r.waiting_for}${r.agent ? `\t${r.agent}` : ''}`);
              for (const d of r.pending) pendingLines(d).forEach((l) => out(`  ${l}`));
              if (r.waiting_for === 'paused') out(`  answer: perflow resume ${r.workflow_id}`);
            }
          }
          return 0;
        });
      }
      case 'approve':
      case 'reject':
      case 'approve-tool':
      case 'deny-tool':
      case 'guide':
      case 'pause':
      case 'resume': {
        const id = requireId(positionals, command);
        const decided = { ...(o.by !== undefined ? { by: o.by } : {}) };
        let send: (client: PerflowClient['client']) => Promise<DecisionRecord>;
        if (command === 'approve') {
          if (o['steps-file'] && o.step) throw new CliError('use either --steps-file or --step, not both', 2);
          const steps = o['steps-file'] ? await readStepsFile(o['steps-file']) : o.step;
          send = (c) => approvePlan(c, id, { ...decided, ...(steps ? { steps } : {}) });
        } else if (command === 'reject' || command === 'deny-tool') {
          if (!o.reason) throw new CliError(`${command} needs --reason TEXT`, 2);
          const reason = o.reason;
          send = command === 'reject' ? (c) => rejectPlan(c, id, { ...decided, reason, stop: o.stop ?? false }) : (c) => denyTool(c, id, { ...decided, reason });
        } else if (command === 'approve-tool') {
          const input = o.input !== undefined ? parseJsonObject(o.input, '--input') : undefined;
          send = (c) => approveTool(c, id, { ...decided, ...(input ? { input } : {}) });
        } else if (command === 'guide') {
          const text = positionals.slice(1).join(' ');
          if (text.trim() === '') throw new CliError('guide needs the guidance: perflow guide ID TEXT', 2);
          send = (c) => guideRun(c, id, text, decided);
        } else {
          send = command === 'pause' ? (c) => pauseRun(c, id, { ...decided, ...(o.reason ? { reason: o.reason } : {}) }) : (c) => resumeRun(c, id, decided);
        }
        return await withClient(config, async ({ client }) => {
          const d = await send(client);
          if (o.json) printJson({ workflow_id: id, ...d });
          else out(`${id}: ${d.kind} ${d.action} by ${d.by} at ${d.at}${d.detail ? ` (${d.detail.replace(/\s*\n\s*/g, ' | ')})` : ''}`);
          return 0;
        });
      }
      case 'codec-server':
        return await codecServer(config, o, env);
      default:
        throw new CliError(`unknown command "${command}" (perflow --help)`, 2);
    }
  } catch (err) {
    const { message, exitCode } = describeError(err, { ...config, workflowId: currentWorkflowId });
    process.stderr.write(`perflow: ${message}\n`);
    if (verbose && err instanceof Error) process.stderr.write(`${err.stack ?? ''}\n`);
    return exitCode;
  }
}

/** What `run` and `fork` print: the started run's IDs, and with --follow / --wait its progress and result. */
async function report(client: PerflowClient['client'], config: ClientConfig, run: StartedRun, o: { json?: boolean; follow?: boolean; wait?: boolean }): Promise<number> {
  const started = { workflow_id: run.workflowId, run_id: run.runId, ...run.ids, ui_url: workflowUrl(config, run.workflowId, run.runId) };
  if (!o.follow && !o.wait) {
    if (o.json) printJson(started);
    else for (const [k, v] of Object.entries(started)) out(`${k === 'ui_url' ? 'ui' : k}: ${v}`);
    return 0;
  }
  // With --json the progress of --follow is a log: stderr, so stdout stays one document.
  const log = o.json ? note : out;
  if (o.follow) for (const [k, v] of Object.entries(started)) log(`${k === 'ui_url' ? 'ui' : k}: ${v}`);
  const result = o.follow ? await followRun(run.handle, log) : ((await run.handle.result()) as RunOutput);
  if (o.json) {
    // The execution that ended the run: a later one than run_id after continue-as-new.
    const { runId } = await client.workflow.getHandle(run.workflowId).describe();
    printJson({ workflow_id: run.workflowId, run_id: runId, ...result });
  }
  else {
    if (o.follow) out('result:');
    out(result.response);
  }
  return 0;
}

/** `perflow codec-server`: serves until SIGINT/SIGTERM. */
async function codecServer(
  config: ClientConfig,
  o: { port?: string; host?: string; 'ui-origin'?: string[]; token?: string; json?: boolean },
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (!config.encryption) throw new CliError('codec-server needs PERFLOW_ENCRYPTION_KEYS (KEY_ID:BASE64_32_BYTES, comma-separated: the keys the workers encrypt with)', 2);
  const port = o.port === undefined ? 8888 : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CliError(`--port expects a port number (0 picks a free one), got "${o.port}"`, 2);
  const host = o.host ?? '127.0.0.1';
  const uiOrigins = o['ui-origin'] ?? [new URL(config.uiUrl).origin];
  for (const origin of uiOrigins) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(origin)) throw new CliError(`--ui-origin expects the Web UI's origin such as http://localhost:8233, got "${origin}"`, 2);
  }
  const token = o.token ?? codecTokenFromEnv(env);
  const server = await startCodecServer({ keyring: config.encryption, port, host, uiOrigins, ...(token !== undefined ? { token } : {}) }).catch((err: unknown) => {
    throw new CliError(`cannot listen on ${host}:${port} (${(err as Error).message}): pick another --port`, 1, { cause: err });
  });
  const keys = [...config.encryption.keys.keys()].map((k) => `"${k}"`).join(', ');
  if (o.json) printJson({ url: server.url, ui_origins: uiOrigins, key_ids: [...config.encryption.keys.keys()], token_required: token !== undefined });
  else {
    out(`perflow codec server: ${server.url} (keys ${keys}; CORS for ${uiOrigins.join(', ')}${token !== undefined ? '; bearer token required' : ''})`);
    out(`Web UI: set the codec endpoint to ${server.url} (Settings → Codec Server, or temporal server start-dev --ui-codec-endpoint ${server.url})`);
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const stop = (sig: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  note(`perflow codec server: ${signal} received, stopped`);
  return 0;
}

/** A JSON object from an option's value, or a one-line error naming the option. */
function parseJsonObject(text: string, option: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${option} is not valid JSON: ${(err as Error).message}`, 2);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError(`${option} must be a JSON object`, 2);
  return value as Record<string, unknown>;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
