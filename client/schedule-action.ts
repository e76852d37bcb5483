/**
 * What a schedule's firing starts: a run of the agent as `startRun` would start it (one input
 * builder, `buildRunStart`), frozen into the schedule's action when it is created or updated, and
 * the record of how it was asked for (kept in the action's memo: a schedule's own memo cannot
 * change, the action's can).
 */
import { randomUUID } from 'node:crypto';
import type { ScheduleOptionsStartWorkflowAction, ScheduleSpec, Workflow } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { AgentDefinitionError, resolveParameters, type AgentDefinition, type ResolvedParameters } from '../core/agent';
import { SearchAttributes, type RunIds, type RunInput } from '../workflows/definitions';
import { denseParameters } from '../core/agent-file/parameter-defaults';
import type { PerflowClient } from './connect';
import { PerflowError } from './errors';
import { buildRunStart, checkRunRequest, type LoadedAgent } from './run';
import { checkWorkerPolicy } from './worker-policy';
import { checkTimezone, checkWhen, parseDuration, scheduleSpecOf } from './schedule-spec';
import type { CreateScheduleOptions, OverlapPolicy, ScheduleRecord } from './schedule-types';

/** A schedule's ID becomes the start of its runs' workflow IDs: kept to plain characters. */
export function checkScheduleId(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(id)) throw new PerflowError('invalid', `schedule ID "${id}": use letters, digits, ".", "_" and "-" (at most 200, starting with a letter or digit)`);
  return id;
}

/** What the schedule is created or updated with, all checked. */
export interface PlannedSchedule {
  spec: ScheduleSpec;
  /** One firing (`at`): Temporal's remaining actions. */
  remainingActions?: number;
  action: ScheduleOptionsStartWorkflowAction<Workflow>;
  record: ScheduleRecord;
  overlap: OverlapPolicy;
  catchupWindowMs?: number;
  agentName: string;
  tenant?: string;
  fingerprint: string;
  /** Its runs' search attributes (also in `action`). */
  runSearchAttributes: SearchAttributePair[];
  /** The schedule's own search attributes (the agent, tenant and fingerprint it runs: filters in the Temporal UI). */
  searchAttributes: SearchAttributePair[];
  /** A conversation to open before the first firing (`sameMemory`). */
  newMemory?: { memory_id: string; name: string; app_type: string; tenant_id?: string };
}

/** `options` as one schedule: timing, agent, parameters, conversation, webhook, policies; every problem one line. */
export async function planSchedule(perflow: PerflowClient, scheduleId: string, o: Omit<CreateScheduleOptions, 'id'>, existingMemory?: string): Promise<PlannedSchedule> {
  const { config } = perflow;
  const timezone = checkTimezone(o.timezone ?? 'UTC');
  const when = checkWhen(o, timezone);
  const overlap = o.overlap ?? 'skip';
  if (o.sameMemory && o.memoryId !== undefined) throw new PerflowError('invalid', 'give --memory-id ID or --same-memory, not both');
  if ((o.sameMemory || o.memoryId !== undefined) && overlap === 'allow-all') {
    throw new PerflowError('invalid', '--overlap allow-all would run one conversation twice at once: use skip, buffer-one, buffer-all or cancel-other with --same-memory or --memory-id');
  }
  const catchupWindowMs = o.catchupWindow !== undefined ? parseDuration(o.catchupWindow, '--catchup-window') : undefined;
  if (catchupWindowMs !== undefined && catchupWindowMs < 10_000) throw new PerflowError('invalid', `--catchup-window ${o.catchupWindow}: Temporal's minimum is 10s`);
  const parameters = withTenant(o.params !== undefined ? resolve(o.agent.agent, o.params, config.limits) : o.agent.parameters, o.tenant);
  const tenant = parameters.tenant_id;
  const agent = o.agent.agent;
  checkWorkerPolicy(agent, config);
  const webhook = checkRunRequest(config, { question: o.question, parameters, webhook: o.webhook });
  const { memory_id, executor_agent_memory_id, ...rest } = parameters;
  const given = o.memoryId ?? memory_id;
  if (given !== undefined && given !== existingMemory) {
    const { assertMemoryExists } = await import('./memory');
    await assertMemoryExists(perflow, given, tenant);
  }
  const conversation = o.sameMemory ? (existingMemory ?? randomUUID()) : given;
  const ids: Partial<RunIds> = { ...(conversation !== undefined ? { memory_id: conversation } : {}), ...(executor_agent_memory_id !== undefined ? { executor_agent_memory_id } : {}) };
  const { start, workflowType } = buildRunStart(config, { agent, parameters: rest, question: o.question, ids, continuesConversation: conversation !== undefined, webhook });
  const record: ScheduleRecord = { ...when, timezone, ...(o.sameMemory ? { same_memory: true } : {}), ...(conversation !== undefined ? { memory_id: conversation } : {}), ...(webhook ? { webhook: webhook.url } : {}) };
  const fingerprint = String(start.memo.fingerprint);
  return {
    spec: scheduleSpecOf(record),
    ...(record.at !== undefined ? { remainingActions: 1 } : {}),
    // The runs' workflow IDs are `<schedule ID>-<firing time>` (Temporal appends the time).
    action: { type: 'startWorkflow', workflowType, workflowId: scheduleId, taskQueue: config.taskQueue, args: [start.input], memo: { ...start.memo, schedule: record }, staticSummary: start.staticSummary, staticDetails: start.staticDetails, typedSearchAttributes: start.searchAttributes },
    runSearchAttributes: start.searchAttributes,
    record,
    overlap,
    ...(catchupWindowMs !== undefined ? { catchupWindowMs } : {}),
    agentName: agent.name,
    ...(tenant !== undefined ? { tenant } : {}),
    fingerprint,
    searchAttributes: [
      { key: SearchAttributes.agent, value: agent.name },
      { key: SearchAttributes.fingerprint, value: fingerprint },
      ...(tenant !== undefined ? [{ key: SearchAttributes.tenant, value: tenant }] : []),
    ],
    ...(o.sameMemory && existingMemory === undefined ? { newMemory: { memory_id: conversation!, name: o.question, app_type: agent.app_type ?? agent.type, ...(tenant !== undefined ? { tenant_id: tenant } : {}) } } : {}),
  };
}

/** The tenant's runs carry its `tenant_id`, whatever the parameters name (as `paramsInScope`). */
function withTenant(p: ResolvedParameters, tenant: string | undefined): ResolvedParameters {
  return tenant === undefined ? p : { ...p, tenant_id: tenant };
}

function resolve(agent: AgentDefinition, params: Record<string, unknown>, limits: PerflowClient['config']['limits']): ResolvedParameters {
  try {
    return resolveParameters(agent, params, {}, limits);
  } catch (err) {
    if (err instanceof AgentDefinitionError) throw new PerflowError('invalid', `--param: ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * Opens the conversation every run of a `sameMemory` schedule continues, before the first
 * firing: each run resumes it (an empty one for the first), so each sees the answers before it.
 */
export async function openConversation(perflow: PerflowClient, memory: NonNullable<PlannedSchedule['newMemory']>): Promise<void> {
  const { withMemory } = await import('./stores');
  await withMemory(perflow, (store) => store.createMemories([{ ...memory, role: 'planner' }], new Date()));
}

/** The agent and parameters a schedule runs, from its action's input: an update that keeps the agent keeps them. */
export function loadedFromInput(input: RunInput): LoadedAgent {
  const executor = input.ids?.executor_agent_memory_id;
  const parameters = denseParameters<ResolvedParameters>(input);
  return { agent: input.agent, parameters: executor !== undefined ? { ...parameters, executor_agent_memory_id: executor } : parameters, warnings: [], notes: [] };
}
