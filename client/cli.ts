/** The `perflow` command line: a thin shell over the client library. */
import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { runWorker } from '../workers/main';
import type { RunOutput } from '../workflows';
import { clientConfigFromEnv, connectClient, workflowUrl, type ClientConfig, type PerflowClient } from './connect';
import { CliError, describeError } from './errors';
import {
  cancelRun,
  fetchHistory,
  getResult,
  getStatus,
  listRuns,
  parseResetTarget,
  readHistoryFile,
  replayHistory,
  resetRun,
  writeHistoryFile,
  type ListStatus,
} from './ops';
import { followRun, loadAgentFile, parseParams, startRun } from './run';

import { formatConversation, readConversation } from '../activities/memory/conversation';
import { assertMemoryExists, withMemory } from './memory';

const USAGE = `usage: perflow <command> [options]
  worker                                   run a worker (env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, PERFLOW_TASK_QUEUE, MONGODB_URI)
  run --agent FILE --question TEXT [--memory-id ID] [--param key=value]... [--follow|--wait] [--json]
  status ID [--json]                       progress of a run
  result ID [--json]                       result of a run (waits for it)
  list [--status running|completed|failed] [--agent NAME] runs
  cancel ID                                cancel a run
  memory MEMORY_ID [--json]                a conversation from MongoDB: questions, steps, tool calls, results
  history ID --out FILE                    save a run's event history as JSON
  replay ID | --history FILE [--workflow-id ID] [--workflows PATH]  replay a history against the current workflow code (or the workflows module at PATH)
  reset ID [--to last-workflow-task|first-workflow-task|failed-activity|EVENT_ID] [--reason TEXT]
Options for all: --verbose (stack traces), --help`;

const out = (line: string) => process.stdout.write(`${line}\n`);

function printResult(r: RunOutput, json: boolean): void {
  out(json ? JSON.stringify(r, null, 2) : r.response);
}

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
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const config = clientConfigFromEnv(env);
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
        await runWorker(env);
        return 0;
      }
      case 'run': {
        if (!o.agent) throw new CliError('run needs --agent FILE', 2);
        if (!o.question) throw new CliError('run needs --question TEXT', 2);
        if (o.follow && o.wait) throw new CliError('use either --follow or --wait, not both', 2);
        const { agent, parameters } = await loadAgentFile(o.agent, parseParams(o.param ?? []));
        if (o['memory-id'] !== undefined) await assertMemoryExists(env, o['memory-id']);
        return await withClient(config, async ({ client }) => {
          const run = await startRun(client, { agent, parameters, question: o.question!, taskQueue: config.taskQueue, memoryId: o['memory-id'], llmTaskQueue: process.env.PERFLOW_LLM_TASK_QUEUE || undefined });
          if (!o.wait) {
            out(`workflow_id: ${run.workflowId}`);
            out(`run_id: ${run.runId}`);
            for (const [k, v] of Object.entries(run.ids)) out(`${k}: ${v}`);
            out(`ui: ${workflowUrl(config, run.workflowId, run.runId)}`);
          }
          if (!o.follow && !o.wait) return 0;
          const result = o.follow ? await followRun(run.handle, out) : ((await run.handle.result()) as RunOutput);
          if (o.follow && !o.json) out('result:');
          printResult(result, o.json ?? false);
          return 0;
        });
      }
      case 'status': {
        const id = requireId(positionals, 'status');
        return await withClient(config, async ({ client }) => {
          const p = await getStatus(client, id);
          if (o.json) out(JSON.stringify(p, null, 2));
          else {
            out(`${id}: ${p.status} (agent ${p.agent}, steps ${p.steps_executed}/${p.max_steps}, tokens in ${p.usage.input_tokens} / out ${p.usage.output_tokens})`);
            p.plan.forEach((s, i) => out(`  plan ${i + 1}. ${s}`));
            if (p.current_step) out(`  running step ${p.current_step.index + 1}: ${p.current_step.step} (executor ${p.current_step.executor_workflow_id})`);
            for (const s of p.completed_steps) out(`  ${s.ok ? 'done' : 'failed'} step ${s.index + 1}: ${s.step} → ${s.result_preview.replace(/\s+/g, ' ').slice(0, 200)}`);
            if (p.result !== undefined) out(`  result: ${p.result}`);
            if (p.error !== undefined) out(`  error: ${p.error}`);
          }
          return 0;
        });
      }
      case 'result': {
        const id = requireId(positionals, 'result');
        return await withClient(config, async ({ client }) => {
          printResult(await getResult(client, id), o.json ?? false);
          return 0;
        });
      }
      case 'list': {
        const status = o.status as ListStatus | undefined;
        if (status !== undefined && !['running', 'completed', 'failed'].includes(status)) {
          throw new CliError(`--status must be running, completed or failed, got "${status}"`, 2);
        }
        return await withClient(config, async ({ client }) => {
          for (const wf of await listRuns(client, status, 100, o.agent)) {
            out(`${wf.workflowId}\t${wf.status.name}\t${wf.startTime.toISOString()}\t${wf.runId}`);
          }
          return 0;
        });
      }
      case 'memory': {
        const id = requireId(positionals, 'memory');
        const view = await withMemory(env, (memory) => readConversation(memory, id));
        if (!view) throw new CliError(`memory_id ${id} not found in MongoDB (MONGODB_URI)`, 1);
        out(o.json ? JSON.stringify(view, null, 2) : formatConversation(view));
        return 0;
      }
      case 'cancel': {
        const id = requireId(positionals, 'cancel');
        return await withClient(config, async ({ client }) => {
          await cancelRun(client, id);
          out(`cancellation requested for ${id}`);
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
          out(`wrote ${h.events?.length ?? 0} events to ${file}`);
          return 0;
        });
      }
      case 'replay': {
        let history: unknown;
        let workflowId = 'replay';
        if (o.history) {
          const read = await readHistoryFile(o.history);
          history = read.history;
          workflowId = o['workflow-id'] ?? read.workflowId ?? workflowId;
        } else {
          workflowId = requireId(positionals, 'replay');
          history = await withClient(config, ({ client }) => fetchHistory(client, workflowId));
        }
        quietRuntime();
        const problem = await replayHistory(history, workflowId, o.workflows ? resolvePath(o.workflows) : undefined);
        if (problem) {
          out(`replay failed: ${problem}`);
          return 3;
        }
        out('replay ok: the history is deterministic with the current workflow code');
        return 0;
      }
      case 'reset': {
        const id = requireId(positionals, 'reset');
        const target = parseResetTarget(o.to);
        return await withClient(config, async ({ client }) => {
          const r = await resetRun(client, id, target, o.reason ?? 'perflow reset');
          out(`reset ${id} to event ${r.eventId}: new run_id ${r.runId}`);
          out(`ui: ${workflowUrl(config, id, r.runId)}`);
          return 0;
        });
      }
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

/** Replay logs errors only, so its output is the verdict. */
function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
