/** Inspecting and managing runs: status, result, list, cancel, history, replay, reset. */
import type { Fingerprint, FingerprintParts } from '../core/fingerprint';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Client, SignalDefinition, WorkflowExecutionInfo } from '@temporalio/client';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { missingSearchAttributes, progressQuery, searchAttributeCreateCommand, searchAttributeRefused, SearchAttributes, type Progress, type RunOutput } from '../workflows/definitions';
import { knownAgentTypes } from '../core/agent-file/known-agent-types';
import { isNotFound, PerflowError } from './errors';
import { readJsonFile } from './json-file';
import { lenientClient } from './payloads';

export async function getStatus(client: Client, workflowId: string): Promise<Progress> {
  return client.workflow.getHandle(workflowId).query(progressQuery);
}

/** A run's fingerprint (core/fingerprint.ts) from its memo; undefined for runs started before fingerprints. */
export async function runFingerprint(client: Client, workflowId: string): Promise<Fingerprint | undefined> {
  const { memo } = await client.workflow.getHandle(workflowId).describe();
  return typeof memo?.fingerprint === 'string' ? { id: memo.fingerprint, parts: memo.fingerprint_parts as FingerprintParts } : undefined;
}

/** A fingerprint as `status --json` and the console's run show it: `fingerprint` and `fingerprint_parts`. */
export const fingerprintFields = (f: Fingerprint | undefined) => (f ? { fingerprint: f.id, fingerprint_parts: f.parts } : {});

/** A run's output with the workflow ID and the run ID of the execution that produced it. */
export type RunResult = RunOutput & { workflow_id: string; run_id: string };

/** Waits for a run's result; follows continue-as-new to the execution that ends the run. */
export async function getResult(client: Client, workflowId: string): Promise<RunResult> {
  const handle = client.workflow.getHandle(workflowId);
  await handle.describe(); // a missing workflow fails here rather than waiting
  const output = (await handle.result()) as RunOutput;
  const { runId } = await handle.describe();
  return { workflow_id: workflowId, run_id: runId, ...output };
}

/** The run statuses {@link listRuns} filters on. */
export const LIST_STATUSES = ['running', 'completed', 'tripped', 'failed'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

/** A status to list runs by, given as `what` (`--status`, `status`); undefined when not given. */
export function parseListStatus(value: string | undefined, what: string): ListStatus | undefined {
  if (value === undefined || (LIST_STATUSES as readonly string[]).includes(value)) return value as ListStatus | undefined;
  throw new PerflowError('invalid', `${what} must be ${LIST_STATUSES.slice(0, -1).join(', ')} or ${LIST_STATUSES.at(-1)}, got "${value}"`);
}
/** A run a guardrail stopped completed its workflow: its `PerflowStatus` says `tripped`. */
const STATUS_QUERY: Record<ListStatus, string> = { running: "ExecutionStatus = 'Running'", completed: "ExecutionStatus = 'Completed'", tripped: "PerflowStatus = 'tripped'", failed: "ExecutionStatus = 'Failed'" };

/** A string as a literal of a visibility query. */
export const queryLiteral = (v: string): string => `'${v.replace(/['\\]/g, '\\$&')}'`;

/**
 * A visibility query for perflow runs (of every agent type this process knows); `agent` uses the
 * PerflowAgent search attribute, `schedule` the one the server sets on a schedule's runs.
 */
export function listQuery(status?: ListStatus, agent?: string, tenant?: string, fingerprint?: string, schedule?: string): string {
  const types = knownAgentTypes().map((s) => `WorkflowType = '${s.workflowType}'`);
  const parts = [`(${types.join(' OR ')})`];
  const quoted = queryLiteral;
  if (status) parts.push(STATUS_QUERY[status]);
  if (agent !== undefined) parts.push(`PerflowAgent = ${quoted(agent)}`);
  if (tenant !== undefined) parts.push(`PerflowTenant = ${quoted(tenant)}`);
  if (fingerprint !== undefined) parts.push(`PerflowFingerprint = ${quoted(fingerprint)}`);
  if (schedule !== undefined) parts.push(`TemporalScheduledById = ${quoted(schedule)}`);
  return parts.join(' AND ');
}

/** A listed run as `perflow list --json` prints it. */
export interface RunSummary {
  workflow_id: string;
  run_id: string;
  workflow_type: string;
  status: string;
  agent?: string;
  /** The run's fingerprint (absent for runs started before fingerprints). */
  fingerprint?: string;
  start_time: string;
  close_time?: string;
}

export function runSummary(wf: WorkflowExecutionInfo): RunSummary {
  const agent = wf.memo?.agent;
  return {
    workflow_id: wf.workflowId,
    run_id: wf.runId,
    workflow_type: wf.type,
    // A run a guardrail stopped completed its workflow: its PerflowStatus tells.
    status: wf.typedSearchAttributes?.get(SearchAttributes.status) === 'tripped' ? 'TRIPPED' : wf.status.name,
    ...(typeof agent === 'string' ? { agent } : {}),
    ...(typeof wf.memo?.fingerprint === 'string' ? { fingerprint: wf.memo.fingerprint } : {}),
    start_time: wf.startTime.toISOString(),
    ...(wf.closeTime ? { close_time: wf.closeTime.toISOString() } : {}),
  };
}

/** Recent perflow runs; one whose memo this client cannot decrypt shows `(encrypted with key "ID")` as its agent and question. */
export async function listRuns(client: Client, status?: ListStatus, limit = 100, agent?: string, tenant?: string, fingerprint?: string, schedule?: string): Promise<WorkflowExecutionInfo[]> {
  const what = fingerprint !== undefined ? 'list --fingerprint' : agent !== undefined ? 'list --agent' : 'list --tenant';
  return needingSearchAttributes(client, what, async () => {
    const out: WorkflowExecutionInfo[] = [];
    for await (const wf of lenientClient(client).workflow.list({ query: listQuery(status, agent, tenant, fingerprint, schedule) })) {
      out.push(wf);
      if (out.length >= limit) break;
    }
    return out;
  });
}

/**
 * Runs a visibility query that filters on perflow's search attributes; a namespace that lacks
 * one fails it in one line naming the attribute and the command that registers it.
 */
export async function needingSearchAttributes<T>(client: Client, command: string, query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (err) {
    const refused = searchAttributeRefused(err);
    if (refused === undefined) throw err;
    const namespace = client.options.namespace;
    const names = refused === '' ? missingSearchAttributes([]) : [refused];
    throw new PerflowError('unavailable', `${command} needs the search attribute ${names.join(', ')}, which namespace ${namespace} lacks; add it with: ${searchAttributeCreateCommand(names, namespace)}`, { cause: err });
  }
}

/**
 * Signals each run found by a visibility query; returns the ids it reached. Visibility lags a
 * run's own state, so a run listed as running may have ended since: it has nothing to be told,
 * and is left out rather than failing the command.
 */
export async function signalRunning<A extends unknown[]>(client: Client, workflowIds: string[], signal: SignalDefinition<A>, ...args: A): Promise<string[]> {
  const reached = await Promise.all(
    workflowIds.map((id) =>
      client.workflow.getHandle(id).signal(signal, ...args).then(
        () => id,
        (err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        },
      ),
    ),
  );
  return reached.filter((id) => id !== undefined);
}

export async function cancelRun(client: Client, workflowId: string): Promise<void> {
  await client.workflow.getHandle(workflowId).cancel();
}

export async function fetchHistory(client: Client, workflowId: string, runId?: string): Promise<History> {
  return client.workflow.getHandle(workflowId, runId).fetchHistory();
}

/** The histories of every execution of a run, oldest first: each continue-as-new names the execution before it. */
export async function runHistories(client: Client, workflowId: string): Promise<History[]> {
  const out: History[] = [];
  for (let runId: string | undefined; ; ) {
    const history = await fetchHistory(client, workflowId, runId);
    out.unshift(history);
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    if (!runId) return out;
  }
}

const HistoryMessage = temporal.api.history.v1.History;

/**
 * Runs @temporalio/common's proto-JSON conversion. It fails with "type must be a Type" where
 * Temporal's packages load different copies of protobufjs (a dependency tree in which npm could
 * not give them one): say so, and how to see it.
 */
function protoJson<T>(convert: () => T): T {
  try {
    return convert();
  } catch (err) {
    if ((err as Error).message === 'type must be a Type') {
      throw new Error("Temporal's packages load different copies of protobufjs (see `npm ls protobufjs`): reinstall so they share one", { cause: err });
    }
    throw err;
  }
}

/** A history as the proto JSON of `temporal workflow show --output json`, with the run's workflow ID beside its events. */
export function historyJSON(history: History, workflowId?: string): string {
  const obj = JSON.parse(protoJson(() => historyToJSON(history))) as Record<string, unknown>;
  // Replay needs the workflow ID (child workflow IDs derive from it); history readers ignore the extra field.
  return JSON.stringify(workflowId === undefined ? obj : { workflowId, ...obj }, null, 2);
}

/**
 * A history from JSON: the proto JSON that `temporal workflow show --output json`, the Web UI's
 * download and {@link historyJSON} write (RFC 3339 event times), or the protobufjs object form
 * (event times as seconds and nanos) of history files written by perflow 0.2 and earlier.
 */
export function parseHistoryJSON(json: unknown): History {
  if (typeof json === 'object' && json !== null && 'workflowId' in json) {
    const { workflowId: _ignored, ...rest } = json as Record<string, unknown>;
    json = rest;
  }
  const events = (json as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || events.length === 0) throw new TypeError('expected an object with an array of events');
  // The two forms differ in how they write times: "2026-11-24T02:52:41.588Z" or { seconds, nanos }.
  const eventTime = (events[0] as { eventTime?: unknown } | null)?.eventTime;
  if (typeof eventTime === 'object' && eventTime !== null) return HistoryMessage.fromObject(json as Record<string, unknown>);
  return protoJson(() => historyFromJSON(json));
}

export async function writeHistoryFile(file: string, history: History, workflowId?: string): Promise<void> {
  await writeFile(file, historyJSON(history, workflowId));
}

/** A history file's events and, when {@link writeHistoryFile} recorded it, its workflow ID. */
export async function readHistoryFile(file: string): Promise<{ history: History; workflowId?: string }> {
  const json = (await readJsonFile(file, 'history file')) as { workflowId?: unknown };
  try {
    const workflowId = typeof json?.workflowId === 'string' ? json.workflowId : undefined;
    return { history: parseHistoryJSON(json), workflowId };
  } catch (err) {
    throw new PerflowError('invalid', `${file} is not a workflow history JSON file: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The workflow ID to replay a history file as (child workflow IDs derive from it): the one the
 * file records ({@link writeHistoryFile} does; Temporal CLI and Web UI exports do not), else
 * `--workflow-id`.
 * @throws PerflowError (`invalid`) in one line when neither names it, or when they differ
 */
export function historyWorkflowId(file: string, recorded: string | undefined, given: string | undefined): string {
  if (recorded !== undefined && given !== undefined && given !== recorded) {
    throw new PerflowError('invalid', `${file} is the history of workflow ID ${recorded}, not ${given}: leave out --workflow-id`);
  }
  const id = recorded ?? given;
  if (id === undefined) throw new PerflowError('invalid', `${file} does not record its workflow ID (Temporal CLI and Web UI exports do not): give it with --workflow-id ID`);
  return id;
}

export type ResetTarget = 'last-workflow-task' | 'first-workflow-task' | 'failed-activity' | number;

const NAMED_TARGETS = ['last-workflow-task', 'first-workflow-task', 'failed-activity'] as const;

export function parseResetTarget(s: string | undefined): ResetTarget {
  if (s === undefined) return 'last-workflow-task';
  if ((NAMED_TARGETS as readonly string[]).includes(s)) return s as ResetTarget;
  const n = Number(s);
  if (!Number.isInteger(n) || n <= 0) throw new PerflowError('invalid', `--to expects ${NAMED_TARGETS.join(', ')} or an event ID, got "${s}"`);
  return n;
}

/**
 * The event ID to reset to: the first/last WORKFLOW_TASK_COMPLETED event, the one that
 * scheduled the last activity that failed for good (`failed-activity`: the run redoes that
 * activity and keeps everything before it), or the given ID.
 */
export function resetEventId(history: History, target: ResetTarget): number {
  if (typeof target === 'number') return target;
  if (target === 'failed-activity') return failedActivityResetPoint(history);
  const completed = (history.events ?? [])
    .filter((e) => e.workflowTaskCompletedEventAttributes)
    .map((e) => Number(e.eventId));
  if (completed.length === 0) throw new PerflowError('conflict', 'the workflow has no completed workflow task to reset to');
  return target === 'first-workflow-task' ? completed[0] : completed[completed.length - 1];
}

function failedActivityResetPoint(history: History): number {
  const events = history.events ?? [];
  const failed = events.filter((e) => e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes).at(-1);
  if (!failed) throw new PerflowError('conflict', 'the run has no failed activity; use --to last-workflow-task, first-workflow-task or an event ID');
  const scheduledId = Number((failed.activityTaskFailedEventAttributes ?? failed.activityTaskTimedOutEventAttributes)!.scheduledEventId);
  const scheduled = events.find((e) => Number(e.eventId) === scheduledId);
  return Number(scheduled!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId);
}

/** Resets a run to a workflow task; returns the new run's ID. */
export async function resetRun(client: Client, workflowId: string, target: ResetTarget, reason = 'perflow reset'): Promise<{ runId: string; eventId: number }> {
  const handle = client.workflow.getHandle(workflowId);
  const desc = await handle.describe();
  const history = await client.workflow.getHandle(workflowId, desc.runId).fetchHistory();
  const eventId = resetEventId(history, target);
  type ResetRequest = Parameters<Client['workflowService']['resetWorkflowExecution']>[0];
  const request = {
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId: desc.runId },
    reason,
    // protobufjs accepts a number where the type says Long
    workflowTaskFinishEventId: eventId as unknown as ResetRequest['workflowTaskFinishEventId'],
    requestId: randomUUID(),
  } satisfies ResetRequest;
  const res = (await client.workflowService.resetWorkflowExecution(request)) as { runId?: string | null };
  return { runId: res.runId ?? '', eventId };
}
