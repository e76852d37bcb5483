/**
 * A tool call of `perflow mcp` as a perflow run: started as `perflow run` starts one (the agent
 * file's sub-agents read from the same folder, the worker policy checked first, a continued
 * memory checked to exist), followed through its event stream for progress, cancelled when the
 * caller cancels, and its end read from Temporal.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PerflowClient } from '../client/connect';
import { PerflowError, failureMessage } from '../client/errors';
import { assertMemoryExists } from '../client/memory';
import { cancelRun } from '../client/ops';
import { loadAgentFile, startRun, type StartedRun } from '../client/run';
import { eventSummary, StepTexts } from '../client/text-views';
import { StreamUnavailableError, watchRun } from '../client/watch';
import { checkWorkerPolicy } from '../client/worker-policy';
import type { RunEvent } from '../core/run-events';
import { oneLine } from '../core/text';
import type { RunOutput } from '../workflows/definitions';
import type { AgentToolArguments, OfferedAgent } from './agent-tools';

/** How a run ended, as a tool call answers it. */
export interface AgentRunEnd {
  status: 'completed' | 'tripped' | 'failed' | 'cancelled' | 'terminated' | 'timed_out';
  response: string;
  workflow_id: string;
  memory_id: string;
  steps_executed?: number;
  cost_usd?: number | null;
  /** With the agent's `output_schema`: the answer's JSON value. */
  output?: unknown;
  error?: string;
}

/** Starts the offered agent's run for a call. @throws PerflowError naming what is wrong with the agent file or the call */
export async function startAgentRun(perflow: PerflowClient, offered: OfferedAgent, args: AgentToolArguments, agentsDir: string): Promise<StartedRun> {
  const { config } = perflow;
  const params = args.memory_id !== undefined ? { memory_id: args.memory_id } : {};
  const { agent, parameters } = await loadAgentFile(offered.file, params, { extraToolTypes: config.extraToolTypes, subAgentsWithin: agentsDir, ...(config.limits ? { limits: config.limits } : {}) });
  checkWorkerPolicy(agent, config);
  if (parameters.memory_id !== undefined) await assertMemoryExists(perflow, parameters.memory_id, parameters.tenant_id);
  return startRun(perflow, { agent, parameters, question: args.question });
}

/** Temporal's status of an ended run, as the tool reports it. */
const ENDED: Record<string, AgentRunEnd['status']> = { COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'cancelled', TERMINATED: 'terminated', TIMED_OUT: 'timed_out' };

/** The run's end: its answer, or why it has none. Waits for it. */
export async function endOf(perflow: PerflowClient, workflowId: string, memoryId: string): Promise<AgentRunEnd> {
  const handle = perflow.client.workflow.getHandle(workflowId);
  try {
    const out = (await handle.result()) as RunOutput;
    return { status: out.tripped ? 'tripped' : 'completed', response: out.response, workflow_id: workflowId, memory_id: out.memory_id, steps_executed: out.steps_executed, cost_usd: out.usage.cost_usd ?? null, ...(out.output !== undefined ? { output: out.output } : {}) };
  } catch (err) {
    const status = ENDED[(await handle.describe()).status.name] ?? 'failed';
    return { status, response: '', workflow_id: workflowId, memory_id: memoryId, error: failureMessage(err) };
  }
}

/**
 * Follows a started run to its end: `progress` gets a line per event, as `perflow watch` words it
 * (the agent tree's sub-agents' too, under their names); model text is left out (a notification
 * per token would flood the client). Aborting `signal` cancels the run.
 */
export async function followAgentRun(perflow: PerflowClient, started: StartedRun, o: { signal?: AbortSignal; progress?: (message: string) => Promise<void> }): Promise<AgentRunEnd> {
  const { workflowId, ids } = started;
  const cancel = () => void cancelRun(perflow.client, workflowId).catch(() => undefined);
  if (o.signal?.aborted) cancel();
  o.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const end = endOf(perflow, workflowId, ids.memory_id);
    if (o.progress) await forwardProgress(perflow, workflowId, o.progress, end);
    return await end;
  } finally {
    o.signal?.removeEventListener('abort', cancel);
  }
}

async function forwardProgress(perflow: PerflowClient, workflowId: string, progress: (message: string) => Promise<void>, end: Promise<AgentRunEnd>): Promise<void> {
  const stop = new AbortController();
  // The stream ends with the run; should it not (a run ended without its last event), its end stops it.
  // (A watch notices such an end at its next look at the run, every 2 s: give it that and more.)
  void end.finally(() => setTimeout(() => stop.abort(), 5_000).unref());
  try {
    const steps = new StepTexts();
    for await (const e of watchRun(perflow, workflowId, { signal: stop.signal })) {
      const line = progressLine(e, steps.of(e));
      if (line !== undefined) await progress(line);
      if (e.type === 'run_finished' && e.run === undefined) break;
    }
  } catch (err) {
    // Without a stream (MongoDB unreachable) the call still answers, without progress.
    if (!(err instanceof StreamUnavailableError) && !stop.signal.aborted) throw err;
  } finally {
    stop.abort();
  }
}

/** One line a person reads for an event (a sub-agent's under its names), or undefined for model text. */
export function progressLine(e: RunEvent, stepText?: string): string | undefined {
  const line = eventSummary(e, stepText);
  return line === undefined ? undefined : `${e.agent_path ? `[${e.agent_path.slice(1).join(' › ')}] ` : ''}${line}`;
}

/** A run's end as an MCP tool result: the answer as text, the IDs as structured content; an error result when it did not complete. */
export function toolResult(end: AgentRunEnd): CallToolResult {
  const { error, ...structured } = end;
  // A tripped run's response says which guardrail stopped it and why (an error result all the same).
  const text = end.status === 'completed' || end.status === 'tripped' ? end.response : `The run ${end.workflow_id} ${end.status}${error ? `: ${error}` : ''}`;
  return { content: [{ type: 'text', text }], structuredContent: { ...structured }, ...(end.status === 'completed' ? {} : { isError: true }) };
}

/** A call refused before any run started, as an error result (the model reads why). */
export function refusedResult(err: unknown): CallToolResult {
  const message = err instanceof PerflowError ? err.message : failureMessage(err);
  return { content: [{ type: 'text', text: oneLine(message) }], isError: true };
}
