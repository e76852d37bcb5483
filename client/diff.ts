/**
 * Two runs side by side (`perflow diff A B`): the agent settings that differ (prompt texts as a
 * unified diff), the plans after each planner call, per step the step, its tool calls with
 * inputs, result preview, tokens, cost and duration, the totals and the final responses — all read
 * from the runs' inputs, histories and progress.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { MAX_AGENT_DEPTH } from '../core/agent-file/sub-agents';
import { denseParameters } from '../core/agent-file/parameter-defaults';
import { parsePlannerOutput } from '../core/planner-output';
import { addUsage, ZERO_USAGE, type Usage } from '../core/llm-types';
import { progressQuery, type RunInput } from '../workflows/definitions';
import { runInputOf } from './fork';
import { runFingerprint, runHistories } from './ops';
import { fingerprintDifference, type Fingerprint } from '../core/fingerprint';
import { decodePayload } from './payloads';

type Event = temporal.api.history.v1.IHistoryEvent;


/** One step of a run as the diff shows it. */
export interface StepSide {
  step: string;
  ok: boolean;
  result_preview: string;
  tool_calls: { tool: string; input: unknown }[];
  /** The step's agent tool calls' runs in this namespace, in call order (a Nexus agent's lies elsewhere). */
  sub_runs: { tool: string; workflow_id: string }[];
  usage: Usage;
  duration_ms: number;
}

/** One run as the diff reads it. */
export interface RunSide {
  workflow_id: string;
  agent: string;
  status: string;
  /** The planner's answer after each call: its steps, or its result. */
  plans: { steps: string[]; result?: string }[];
  steps: StepSide[];
  usage: Usage;
  duration_ms: number;
  response?: string;
}

export interface RunDiff {
  a: RunSide;
  b: RunSide;
  /** The runs' fingerprints, whether they are the same, and the parts that differ (`prompts`, `tools`, …). */
  fingerprint: { a?: string; b?: string; same: boolean; differs: string[] };
  /** Settings (model, executor model, question, parameters) whose values differ; texts with a unified diff. */
  settings: { key: string; a: unknown; b: unknown; diff?: string }[];
  steps: { index: number; a?: StepSide; b?: StepSide; same: boolean }[];
  same_response: boolean;
  /** The two trees' sub-agent runs node by node (see `SubAgentDiff`); empty for runs without agent tools. */
  sub_agents: SubAgentDiff[];
}

/**
 * One node of two agent trees: the K-th agent tool call of step N on each side. `shared` when both
 * sides name one run (a fork reuses the source's steps before its fork point, sub-agents' runs
 * included); else `diff` compares the two runs, their own sub-agents' the same way.
 */
export interface SubAgentDiff {
  step: number;
  call: number;
  tool: string;
  a?: string;
  b?: string;
  shared?: true;
  diff?: RunDiff;
  same: boolean;
}

const millis = (e: Event | undefined) => (e?.eventTime ? Number(e.eventTime.seconds) * 1_000 + Math.round((e.eventTime.nanos ?? 0) / 1e6) : 0);
const spanMs = (events: Event[]) => (events.length > 0 ? millis(events[events.length - 1]) - millis(events[0]) : 0);

/** Activity results by type, in order, with their scheduled inputs (decoded as the client decodes: decrypted with PERFLOW_ENCRYPTION_KEYS). */
async function activities(client: Client, events: Event[], type: string): Promise<{ input: unknown; result: unknown }[]> {
  const decode = (payload: unknown) => decodePayload(client, payload as never);
  const byScheduled = new Map<string, Event>();
  for (const e of events) if (e.activityTaskCompletedEventAttributes) byScheduled.set(String(e.activityTaskCompletedEventAttributes.scheduledEventId), e);
  return Promise.all(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
      .map(async (e) => {
        const done = byScheduled.get(String(e.eventId))?.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
        return { input: await decode(e.activityTaskScheduledEventAttributes!.input!.payloads![0]), result: done ? await decode(done) : undefined };
      }),
  );
}

/** A step's tool calls in the order the model asked for them: tools' and agent tools' (with their sub-agents' runs). */
async function toolCallsOf(client: Client, child: Event[]): Promise<Pick<StepSide, 'tool_calls' | 'sub_runs'>> {
  type AgentCall = { name: string; input: unknown; place: { callIndex: number }; sub_run: { workflow_id: string }; elsewhere?: unknown };
  const agentCalls = (await activities(client, child, 'agentToolEnded')).map((c) => c.input as AgentCall).sort((a, b) => a.place.callIndex - b.place.callIndex);
  const calls = [
    ...(await activities(client, child, 'callTool')).map((c) => c.input as { tool: { name?: string; type: string }; input: unknown; place: { callIndex: number } }).map((c) => ({ tool: c.tool.name ?? c.tool.type, input: c.input, at: c.place.callIndex })),
    ...agentCalls.map((c) => ({ tool: c.name, input: c.input, at: c.place.callIndex })),
  ];
  return {
    tool_calls: calls.sort((a, b) => a.at - b.at).map(({ tool, input }) => ({ tool, input })),
    sub_runs: agentCalls.filter((c) => c.elsewhere === undefined).map((c) => ({ tool: c.name, workflow_id: c.sub_run.workflow_id })),
  };
}

/** What a completed step used, as its executor reported it (its sub-agents' usage included); undefined for a step that did not complete. */
async function stepUsage(client: Client, child: Event[]): Promise<Usage | undefined> {
  const done = child.find((e) => e.workflowExecutionCompletedEventAttributes)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  return done ? ((await decodePayload(client, done as never)) as { usage?: Usage } | undefined)?.usage : undefined;
}

/** The step's usage: its model calls' added up (a cost is unknown when a call's is: `addUsage`). */
const usageOf = (results: unknown[]): Usage =>
  results.reduce<Usage>((u, r) => {
    const x = (r as { usage?: Usage } | undefined)?.usage;
    return x ? addUsage(u, x) : u;
  }, ZERO_USAGE);

async function sideOf(client: Client, workflowId: string): Promise<{ side: RunSide; input: RunInput; fingerprint?: Fingerprint }> {
  const [input, fingerprint] = await Promise.all([runInputOf(client, workflowId), runFingerprint(client, workflowId)]);
  const progress = await client.workflow.getHandle(workflowId).query(progressQuery);
  // Every execution: a long run's plans and duration span its continue-as-new chain.
  const events = (await runHistories(client, workflowId)).flatMap((h) => h.events ?? []);
  const plans = (await activities(client, events, 'planningModel'))
    .filter((a) => (a.input as { position?: { role?: string } }).position?.role === 'planner')
    .map((a) => {
      const parsed = parsePlannerOutput((a.result as { text?: string } | undefined)?.text ?? '', { groups: true });
      return parsed.ok ? { steps: parsed.steps, ...(parsed.result !== '' ? { result: parsed.result } : {}) } : { steps: [] };
    });
  const steps: StepSide[] = [];
  for (const s of progress.completed_steps) {
    const child = (await client.workflow.getHandle(s.executor_workflow_id).fetchHistory().catch(() => undefined))?.events ?? [];
    steps.push({
      step: s.step,
      ok: s.ok,
      result_preview: s.result_preview,
      ...(await toolCallsOf(client, child)),
      usage: (await stepUsage(client, child)) ?? usageOf((await activities(client, child, 'executionModel')).map((a) => a.result)),
      duration_ms: spanMs(child),
    });
  }
  return {
    input,
    ...(fingerprint ? { fingerprint } : {}),
    side: {
      workflow_id: workflowId,
      agent: progress.agent,
      status: progress.status,
      plans,
      steps,
      usage: progress.usage,
      duration_ms: spanMs(events),
      ...(progress.result !== undefined ? { response: progress.result } : {}),
    },
  };
}

/** What the diff compares of a run's settings, by key. */
function settingsOf(input: RunInput): Record<string, unknown> {
  const p = denseParameters<Record<string, unknown>>(input as never);
  const out: Record<string, unknown> = {
    'llm.interface': input.agent.llm.interface,
    'llm.model': input.agent.llm.model,
    'executor_llm.model': input.agent.executor_llm.model,
    question: input.question,
    tools: input.agent.tools.map((t) => t.name ?? t.type).join(', '),
  };
  for (const [k, v] of Object.entries(p)) out[`parameters.${k}`] = v;
  return out;
}

/** Compares runs `a` and `b`, and their agent trees node by node. */
export async function diffRuns(client: Client, a: string, b: string): Promise<RunDiff> {
  return diffTrees(client, a, b, 0);
}

async function diffTrees(client: Client, a: string, b: string, depth: number): Promise<RunDiff> {
  const [left, right] = await Promise.all([sideOf(client, a), sideOf(client, b)]);
  const sa = settingsOf(left.input);
  const sb = settingsOf(right.input);
  const keys = [...new Set([...Object.keys(sa), ...Object.keys(sb)])].sort();
  const settings = keys
    .filter((k) => JSON.stringify(sa[k]) !== JSON.stringify(sb[k]))
    .map((key) => {
      const [va, vb] = [sa[key], sb[key]];
      const text = typeof va === 'string' && typeof vb === 'string' && (va.includes('\n') || vb.includes('\n'));
      return { key, a: va, b: vb, ...(text ? { diff: unifiedDiff(va, vb, a, b) } : {}) };
    });
  const n = Math.max(left.side.steps.length, right.side.steps.length);
  const steps = Array.from({ length: n }, (_, index) => {
    const [x, y] = [left.side.steps[index], right.side.steps[index]];
    const same = x !== undefined && y !== undefined && x.step === y.step && x.result_preview === y.result_preview && JSON.stringify(x.tool_calls) === JSON.stringify(y.tool_calls);
    return { index, ...(x ? { a: x } : {}), ...(y ? { b: y } : {}), same };
  });
  const sub_agents = await subAgentDiffs(client, left.side, right.side, depth);
  const [fa, fb] = [left.fingerprint, right.fingerprint];
  const fingerprint = { ...(fa ? { a: fa.id } : {}), ...(fb ? { b: fb.id } : {}), same: fa !== undefined && fa.id === fb?.id, differs: fa && fb ? fingerprintDifference(fa.parts, fb.parts) : [] };
  return { a: left.side, b: right.side, fingerprint, settings, steps, same_response: left.side.response === right.side.response, sub_agents };
}

/** Two runs alike in what the diff compares: settings, steps, response and their trees. */
const alike = (d: RunDiff) => d.settings.length === 0 && d.steps.every((s) => s.same) && d.same_response && d.sub_agents.every((n) => n.same);

/** The nodes below two runs: the K-th agent tool call of each step paired across sides. */
async function subAgentDiffs(client: Client, a: RunSide, b: RunSide, depth: number): Promise<SubAgentDiff[]> {
  const nodes: SubAgentDiff[] = [];
  for (let step = 0; step < Math.max(a.steps.length, b.steps.length); step++) {
    const [ra, rb] = [a.steps[step]?.sub_runs ?? [], b.steps[step]?.sub_runs ?? []];
    for (let call = 0; call < Math.max(ra.length, rb.length); call++) {
      const [x, y] = [ra[call], rb[call]];
      const node: SubAgentDiff = { step, call, tool: (x ?? y)!.tool, ...(x ? { a: x.workflow_id } : {}), ...(y ? { b: y.workflow_id } : {}), same: false };
      if (x && y && x.workflow_id === y.workflow_id) Object.assign(node, { shared: true, same: true });
      else if (x && y && depth < MAX_AGENT_DEPTH) {
        // A node whose run cannot be read (deleted by retention) is listed without its diff.
        const diff = await diffTrees(client, x.workflow_id, y.workflow_id, depth + 1).catch(() => undefined);
        if (diff) Object.assign(node, { diff, same: alike(diff) });
      }
      nodes.push(node);
    }
  }
  return nodes;
}

/**
 * A line diff of two texts in unified form: `--- nameA`, `+++ nameB`, then the whole texts as
 * one hunk (`-` lines of a, `+` lines of b, the lines they share unmarked); no hunk when the
 * texts are the same.
 */
export function unifiedDiff(a: string, b: string, nameA = 'a', nameB = 'b'): string {
  // Each text ends in a newline here, so no line is marked "\ No newline at end of file".
  const patch = createTwoFilesPatch(nameA, nameB, `${a}\n`, `${b}\n`, undefined, undefined, { context: Number.MAX_SAFE_INTEGER, headerOptions: FILE_HEADERS_ONLY });
  return patch.replace(/\n$/, '');
}

