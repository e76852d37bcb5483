/**
 * Forking a run from step N: a new run that reuses the source's first N−1 completed steps
 * (copied from its memory; no model or tool call redoes them) and goes on with the planner at
 * step N under a changed agent file, parameters or question.
 */
import type { Client } from '@temporalio/client';
import { knownAgentTypes, resolveParameters, type AgentDefinition, type ResolvedParameters } from '../core/agent';
import { denseParameters } from '../core/agent-file/parameter-defaults';
import { forkPointQuery, progressQuery, type ForkSource, type RunInput } from '../workflows/definitions';
import type { PerflowClient } from './connect';
import { PerflowError } from './errors';
import { decodePayload } from './payloads';
import { startRun, type StartedRun } from './run';

export interface ForkOptions {
  /** The step the fork starts at (1-based): 1 re-runs everything with the new settings. */
  fromStep: number;
  /** The fork's agent (default: the source's). */
  agent?: AgentDefinition;
  /** Run parameters over the agent's (over the source's when no agent is given). */
  params?: Record<string, unknown>;
  question?: string;
  /** @default the client's task queue (PERFLOW_TASK_QUEUE) */
  taskQueue?: string;
  /** @default the client's (PERFLOW_LLM_TASK_QUEUE) */
  llmTaskQueue?: string;
  /** The fork's workflow ID (default: a new one); forking again with it fails and copies nothing twice. */
  workflowId?: string;
}

/** The input a run was started with (its latest execution's, which continue-as-new keeps). */
export async function runInputOf(client: Client, workflowId: string): Promise<RunInput> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payload = started?.input?.payloads?.[0];
  if (!payload) throw new PerflowError('failed', `${workflowId} has no run input in its history`);
  return (await decodePayload(client, payload as never)) as RunInput;
}

/** What a fork of `sourceId` from step `fromStep` takes over; fails in one line when that step is past the source's. */
export async function forkSource(client: Client, sourceId: string, fromStep: number, source?: RunInput): Promise<ForkSource> {
  const input = source ?? (await runInputOf(client, sourceId));
  const forkable = knownAgentTypes().filter((s) => s.fork).map((s) => s.type);
  if (!forkable.includes(input.agent.type)) {
    throw new PerflowError('invalid', `fork supports ${forkable.join(' and ')} runs; ${sourceId} is a ${input.agent.type} run, whose step list and variables a fork does not rebuild`);
  }
  const handle = client.workflow.getHandle(sourceId);
  const progress = await handle.query(progressQuery);
  const point = await handle.query(forkPointQuery, fromStep);
  const done = point.completed;
  if (!Number.isInteger(fromStep) || fromStep < 1 || fromStep > done + 1) {
    throw new PerflowError('invalid', `--from-step ${fromStep} is past what ${sourceId} has: it completed ${done} step${done === 1 ? '' : 's'}, so --from-step may be 1 to ${done + 1}`);
  }
  if (point.refused) throw new PerflowError('invalid', `cannot fork ${sourceId} from step ${fromStep}: ${point.refused}`);
  const { tenant_id } = denseParameters<ResolvedParameters>(input);
  return {
    workflow_id: sourceId,
    step: fromStep,
    ids: {
      memory_id: progress.memory_id,
      parent_interaction_id: progress.parent_interaction_id,
      executor_agent_memory_id: progress.executor_agent_memory_id,
      executor_agent_parent_interaction_id: progress.executor_agent_parent_interaction_id,
      ...(tenant_id !== undefined ? { tenant_id } : {}),
    },
    steps: point.steps,
    ...(point.agent_state !== undefined ? { agent_state: point.agent_state } : {}),
    ...(point.planner_calls !== undefined ? { planner_calls: point.planner_calls } : {}),
  };
}

/** Starts a fork of run `sourceId` from step `fromStep` (see {@link forkSource}). */
export async function forkRun(perflow: PerflowClient, sourceId: string, o: ForkOptions): Promise<StartedRun> {
  const { client } = perflow;
  const source = await runInputOf(client, sourceId);
  const fork = await forkSource(client, sourceId, o.fromStep, source);
  const agent = o.agent ?? source.agent;
  // The fork has a memory of its own: the source's conversation and executor memory are not continued.
  const inherited: Partial<ResolvedParameters> = o.agent ? {} : denseParameters<ResolvedParameters>(source);
  const { memory_id: _m, executor_agent_memory_id: _e, ...kept } = inherited;
  // The fork copies the source's steps into its own memory: it stays in the source's tenant.
  const tenant = denseParameters<ResolvedParameters>(source).tenant_id;
  const asked = o.params?.tenant_id;
  if (asked !== undefined && asked !== tenant) {
    throw new PerflowError('refused', `a fork stays in its source's tenant (${tenant ?? 'none'}): tenant_id ${JSON.stringify(asked)} would copy ${sourceId}'s steps into another tenant's memory`);
  }
  let parameters: ResolvedParameters;
  try {
    parameters = resolveParameters(agent, { ...o.params, ...(tenant !== undefined ? { tenant_id: tenant } : {}) }, kept);
  } catch (err) {
    throw new PerflowError('invalid', (err as Error).message, { cause: err });
  }
  return startRun(perflow, {
    agent,
    parameters,
    question: o.question ?? source.question,
    ...(o.taskQueue ? { taskQueue: o.taskQueue } : {}),
    ...(o.llmTaskQueue ? { llmTaskQueue: o.llmTaskQueue } : {}),
    ...(o.workflowId ? { workflowId: o.workflowId } : {}),
    fork,
  });
}
