/**
 * The tool calls' activities: listing an agent's tools (its built-in ones and its MCP servers',
 * after the worker policy), and running one call — bounded in time, recorded in memory and the
 * run's event stream, its output cut for the model and kept whole in memory.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { AgentTool, AgentToolRef, ToolCallInput, ToolObservation } from '../core/activity-contract';
import type { McpServerConfig } from '../core/agent';
import { toolCallName, wholeKeys, type StreamOpening } from '../core/run-events';
import { toolTimeoutSeconds } from '../core/tool-types';
import type { MemoryStore, SubRunLink } from '../stores/store';
import type { RunEventLog } from '../stores/run-events';
import { observeToolCall, type TelemetryDeps } from '../telemetry/model-and-tool-calls';
import { withHeartbeat } from './heartbeat';
import { scoreCase } from '../core/eval/checks';
import { withheldOutput, type Guardrail } from '../core/guardrails';
import { ZERO_USAGE } from '../core/llm-types';
import { saveToolCall, toolCallId, type ToolCallPlace } from './memory';
import type { toolAnswerCache } from './worker-caches';
import { checkMcpServers, checkRemoteAgents, checkSubAgents, policySecrets, remoteHostCheck, type PolicyDeps } from './policy';
import { callA2AAgentTool, describeA2AAgents } from './tools/a2a-calls';
import { AGENT_TOOL_INPUT_SCHEMA, agentToolName, isAgentTool, subAgentOf } from '../core/agent';
import { NEXUS_AGENT_TOOL_TYPE } from '../core/nexus-agents';
import { activityStream, withRunEvents } from './run-events';
import { callMcpTool, listMcpTools, MCP_TOOL_TYPE, mcpNeedsApproval, type McpToolParameters, type SecretReader } from './tools/mcp';
import { toolSpec, type ToolRegistry } from './tools/tool';
import { isA2AAgentTool } from '../core/a2a-tool';
import type { A2AToolCall } from './tools/a2a-calls';

/** What tool calls use. */
export interface ToolCallDeps extends TelemetryDeps, PolicyDeps {
  tools: ToolRegistry;
  memory: MemoryStore;
  /** The worker's environment variables, for `${NAME}` references in MCP servers' env and headers (none without). */
  secret?: SecretReader;
  /** The runs' event streams: tool calls and results are published as they happen (none without). */
  events?: RunEventLog;
  /** The answers this worker's tool calls gave, for the step's next turn (none without). */
  toolAnswers?: ReturnType<typeof toolAnswerCache>;
}

/**
 * Longest tool output the model sees (characters). Longer outputs are stored whole in memory
 * and cut here with a marker, so neither the prompt nor the workflow history grows with them.
 */
export const TOOL_OUTPUT_MODEL_LIMIT = 8_000;

/** The tools an agent may use: what the model sees (name, description, JSON schema) and how to run each; the run's first event, when this is its first activity. */
export function describeTools(deps: ToolCallDeps, { opening, ...agent }: { tools: AgentToolRef[]; mcp_servers?: McpServerConfig[]; opening?: StreamOpening }): Promise<AgentTool[]> {
  return withRunEvents(deps.events, { opening }, () => toolsOf(deps, agent));
}

async function toolsOf(deps: ToolCallDeps, { tools, mcp_servers = [] }: { tools: AgentToolRef[]; mcp_servers?: McpServerConfig[] }): Promise<AgentTool[]> {
    // Before anything is started or reached: the worker policy, over the sub-agents' too.
    checkSubAgents(deps, tools);
    checkRemoteAgents(deps, tools);
    const remote = await describeA2AAgents(tools, (ref) => ({ check: remoteHostCheck(deps, ref.name ?? ref.type), secret: policySecrets(deps, deps.secret ?? noSecrets) }));
    const builtin = tools.map((ref): AgentTool => {
      if (isAgentTool(ref)) return agentToolOf(ref);
      if (remote.has(ref)) return remote.get(ref)!;
      if (ref.type === NEXUS_AGENT_TOOL_TYPE) return nexusAgentToolOf(ref);
      const tool = deps.tools.get(ref.type);
      if (!tool) {
        throw ApplicationFailure.nonRetryable(
          `unknown tool type "${ref.type}"; this worker has: ${[...deps.tools.keys()].join(', ') || 'no tools'}`,
          'Tool.Unknown',
        );
      }
      const spec = toolSpec(tool, ref.name ?? tool.type, ref.description ?? namesAsListed(tool.description, tools));
      // The seed's tool attributes: the schema the model is shown, and strict function calling.
      const { input_schema, strict } = ref.attributes ?? {};
      return { spec: { ...spec, ...(input_schema ? { input_schema } : {}), ...(strict !== undefined ? { strict } : {}) }, ref };
    });
    checkMcpServers(deps, mcp_servers);
    const mcp = (await listMcpTools(mcp_servers, policySecrets(deps, deps.secret ?? noSecrets))).map(
      ({ spec, parameters }): AgentTool => ({
        spec,
        ref: { type: MCP_TOOL_TYPE, name: spec.name, parameters: { ...parameters }, ...(mcpNeedsApproval(parameters.server, parameters.tool) ? { requires_approval: true } : {}) },
      }),
    );
    return [...builtin, ...mcp];
  }

/** An agent tool as the model sees it: the entry's name and description (else the sub-agent's), and `{question, memory_id?}`. */
function agentToolOf(ref: AgentToolRef): AgentTool {
  const sub = subAgentOf(ref);
  if (!sub) throw ApplicationFailure.nonRetryable(`tool "${ref.name ?? ref.type}": its sub-agent was not read with the agent file; start runs with perflow's client (loadAgentFile reads the files AgentTool entries name)`, 'Tool.Unresolved');
  const name = agentToolName(ref, sub);
  const description = ref.description ?? (sub.definition.description.trim() || `The agent "${sub.definition.name}": ask it a question, it answers.`);
  return { spec: { name, description, input_schema: AGENT_TOOL_INPUT_SCHEMA }, ref: { ...ref, name } };
}

/** An agent behind a Nexus endpoint as the model sees it: `{question, memory_id?}`. */
function nexusAgentToolOf(ref: AgentToolRef): AgentTool {
  const { agent, endpoint } = ref.parameters as { agent: string; endpoint: string };
  const name = ref.name ?? agent;
  return { spec: { name, description: ref.description ?? `The agent "${agent}" (served through the Nexus endpoint ${endpoint}): ask it a question, it answers.`, input_schema: AGENT_TOOL_INPUT_SCHEMA }, ref: { ...ref, name } };
}

/**
 * A tool call's event waits this long for its result: a quick call is one write of the stream
 * with its result, a slower one shows as running once this has passed.
 */
const TOOL_CALL_HOLD_MS = 250;

/** Runs one tool call; bad input and tool errors become observations the model can act on. */
export async function callTool(deps: ToolCallDeps, { tool: ref, input, place, hand_events, events_before, guardrails, reply, decline }: ToolCallInput): Promise<ToolObservation> {
    const name = ref.name ?? ref.type;
    // The step's start, when its first turn handed it on: with the call's first write (or on, with the call's own events).
    const stream = activityStream(deps.events, events_before && { ...wholeKeys(events_before), holdMs: Infinity });
    const call = toolCallName(place.stepIndex, place.callIndex);
    stream?.toolCall(place.stepIndex, name, call, input, undefined, TOOL_CALL_HOLD_MS);
    const output = await withHeartbeat((beat) => observeToolCall(deps, { name, type: ref.type }, () => runTool(deps, ref, input, { place, beat, reply, decline }), input, place.ids.memory_id));
    // Checked here, before memory, the stream, the model or the workflow's history hold the output.
    const observation = guardrails?.length ? await guardedOutput(output, guardrails) : output;
    await saveToolCall(deps.memory, place, { name, input, output: observation.content, is_error: observation.is_error });
    const answer = { ...observation, content: answered(deps, place, observation.content) };
    // Handed on: the step's next model call writes the result (and the call, unless it showed while running).
    if (hand_events && stream) return (await stream.handOn()) ? { ...answer, call_published: true } : answer;
    await stream?.toolResult(place.stepIndex, name, call, !observation.is_error, answer.content);
    return answer;
  }

/** An agent tool's call as the executor reports it: before the sub-agent's run starts, and after it ends. */
export interface AgentToolCallRecord {
  name: string;
  /** The sub-agent's name (its agent file's). */
  agent: string;
  input: Record<string, unknown>;
  place: ToolCallPlace;
  sub_run: SubRunLink;
  /** The sub-run is in another namespace (a Nexus agent tool's): `sub_run` names it there. */
  elsewhere?: { endpoint: string };
}

/** An agent tool's call about to run (the sub-agent's run is a child workflow of the step): on the run's stream. */
export async function agentToolStarted(deps: ToolCallDeps, record: AgentToolCallRecord): Promise<void> {
  const { name, agent, input, place, sub_run } = record;
  const stream = activityStream(deps.events);
  // A sub-run in another namespace (Nexus) is not followed from here: its stream lives there.
  stream?.toolCall(place.stepIndex, name, toolCallName(place.stepIndex, place.callIndex), input, record.elsewhere ? undefined : { workflow_id: sub_run.workflow_id, agent });
  await stream?.close();
}

/** An agent tool's call ended: recorded in memory with its sub-run, on the stream; the answer as the model sees it. */
export async function agentToolEnded(deps: ToolCallDeps, record: AgentToolCallRecord & ToolObservation): Promise<ToolObservation> {
  const { name, input, place, sub_run, content, is_error } = record;
  await saveToolCall(deps.memory, place, { name, input, output: content, is_error, sub_run });
  const answer = answered(deps, place, content);
  await activityStream(deps.events)?.toolResult(place.stepIndex, name, toolCallName(place.stepIndex, place.callIndex), !is_error, answer);
  return { content: answer, is_error };
}

/** A saved call's answer as the model sees it, remembered for the step's next turn on this worker. */
function answered(deps: ToolCallDeps, place: ToolCallPlace, output: string): string {
  const answer = outputForModel(place, output);
  deps.toolAnswers?.remember(toolCallId(place), answer);
  return answer;
}

/**
 * A tool's output as the model sees it: whole up to TOOL_OUTPUT_MODEL_LIMIT characters, else cut
 * there with a note naming the interaction that holds it whole. The one cut, for the call's
 * answer and for a model call that reads the output back from memory.
 */
export function outputForModel(place: ToolCallPlace, output: string): string {
  if (output.length <= TOOL_OUTPUT_MODEL_LIMIT) return output;
  const marker = `\n…[truncated: the tool returned ${output.length} characters; the whole output is stored in memory as interaction ${toolCallId(place)}]`;
  return output.slice(0, TOOL_OUTPUT_MODEL_LIMIT) + marker;
}

const noSecrets: SecretReader = () => undefined;

/** A built-in description with the other tools it mentions under the names the agent lists them by (a seed's `ListIndexTool` …). */
function namesAsListed(description: string, tools: readonly AgentToolRef[]): string {
  return tools.reduce((text, t) => (t.name !== undefined && t.name !== t.type ? text.replaceAll(t.type, t.name) : text), description);
}

async function runTool(deps: ToolCallDeps, ref: AgentToolRef, input: Record<string, unknown>, call: Omit<A2AToolCall, 'secret' | 'check'>): Promise<ToolObservation> {
  const { tools } = deps;
  if (isA2AAgentTool(ref)) return callA2AAgentTool(ref, input, { ...call, secret: policySecrets(deps, deps.secret ?? noSecrets), check: remoteHostCheck(deps, ref.name ?? ref.type) });
  if (ref.type === MCP_TOOL_TYPE) {
    const parameters = ref.parameters as unknown as McpToolParameters;
    // The server was allowed when the run listed its tools; the policy may have changed since.
    checkMcpServers(deps, [parameters.server]);
    try {
      return await callMcpTool(parameters, input, policySecrets(deps, deps.secret ?? noSecrets));
    } catch (err) {
      return { content: `Error: ${ref.name ?? 'MCP tool'} failed: ${(err as Error).message}`, is_error: true };
    }
  }
  const tool = tools.get(ref.type);
  if (!tool) return { content: `Error: tool type "${ref.type}" is not available on this worker`, is_error: true };
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
    return { content: `Error: invalid input for ${ref.name ?? ref.type}: ${problems}`, is_error: true };
  }
  const seconds = toolTimeoutSeconds(ref.parameters);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${seconds} s`)), seconds * 1000);
  });
  try {
    return { content: await Promise.race([tool.run(parsed.data as never, ref.parameters ?? {}), timeout]), is_error: false };
  } catch (err) {
    return { content: `Error: ${ref.name ?? ref.type} failed: ${(err as Error).message}`, is_error: true };
  } finally {
    clearTimeout(timer);
  }
}

/** A tool's output past the tool_output guardrails, or withheld (an error observation naming the check, never the output) with the verdict. */
async function guardedOutput(observation: ToolObservation, guardrails: Guardrail[]): Promise<ToolObservation> {
  const checks = guardrails.map(({ on_fail: _action, ...check }) => check);
  const obs = { status: 'completed', response: observation.content, tools_called: [], steps: 0, usage: ZERO_USAGE, duration_ms: 0 };
  const results = await scoreCase(checks, obs, () => Promise.reject(new Error('a tool_output guardrail has no judge')));
  // A `stop` guardrail wins over an `ask` one.
  const failedAt = (action: Guardrail['on_fail']) => results.findIndex((r, i) => !r.passed && guardrails[i].on_fail === action);
  const index = failedAt('stop') >= 0 ? failedAt('stop') : results.findIndex((r) => !r.passed);
  if (index < 0) return observation;
  // The detail may quote what matched (a key): the verdict says only which check failed.
  const verdict = { place: 'tool_output' as const, check: results[index].check, passed: false, detail: "the tool's output failed it (withheld)", on_fail: guardrails[index].on_fail };
  return { content: withheldOutput(verdict), is_error: true, tripped: verdict };
}
