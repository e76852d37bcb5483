/**
 * The baseline of "what durability costs": the same plan-execute-reflect agent as a plain loop
 * in this process. It renders and parses as perflow does (core/template, core/planner-output),
 * calls the model through the same `chat()` (the scripted model waits its `latency_ms`) and runs
 * the same tools, with no Temporal and no MongoDB: nothing is recorded, retried or resumable.
 */
import { TOOL_OUTPUT_MODEL_LIMIT } from '../activities';
import { chat } from '../activities/llm/chat';
import { toolRegistry, toolSpec, type Tool } from '../activities/tools/tool';
import { denseParameters, type AgentDefinition, type ResolvedParameters } from '../core/agent';
import type { ChatMessage, ToolSpec } from '../core/llm-types';
import { parsePlannerOutput } from '../core/planner-output';
import { executorOpening, formatCompletedSteps, formatSteps, renderTemplate, templateParams, type CompletedStep } from '../core/template';
import type { PlanExecuteReflectInput } from '../workflows';

interface LoopAgent {
  agent: AgentDefinition;
  p: ResolvedParameters;
  params: Record<string, string>;
  specs: ToolSpec[];
  tools: ReadonlyMap<string, Tool<never>>;
}

/** Runs the agent to its answer; returns it with the number of executed steps. */
export async function runInProcess(input: PlanExecuteReflectInput, tools: Tool<never>[]): Promise<{ response: string; steps: number }> {
  const { agent, question } = input;
  const p = denseParameters<ResolvedParameters>(input);
  const registry = toolRegistry(tools);
  // The agent's tools as the model sees them (name, description, schema) and as the loop runs them.
  const offered = agent.tools.map((ref) => {
    const tool = registry.get(ref.type);
    if (!tool) throw new Error(`unknown tool type "${ref.type}"`);
    return { tool, spec: toolSpec(tool, ref.name ?? tool.type, ref.description ?? tool.description) };
  });
  const specs = offered.map((t) => t.spec);
  const loop: LoopAgent = { agent, p, params: templateParams(p, question, specs), specs, tools: new Map(offered.map((t) => [t.spec.name, t.tool])) };
  const completed: CompletedStep[] = [];
  let plan: string[] = [];
  for (let call = 0; completed.length < p.max_steps; call++) {
    const answer = await planner(loop, call, plan, completed);
    if (answer.result !== '') return { response: answer.result, steps: completed.length };
    plan = answer.steps;
    completed.push({ step: plan[0], result: await executeStep(loop, completed, plan[0]) });
  }
  return { response: `max_steps (${p.max_steps}) reached`, steps: completed.length };
}

async function planner(loop: LoopAgent, call: number, plan: string[], completed: CompletedStep[]): Promise<{ steps: string[]; result: string }> {
  const { params } = loop;
  const template = completed.length > 0 ? params.reflect_prompt_template : params.planner_prompt_template;
  const prompt = renderTemplate(template, { ...params, steps: formatSteps(plan), completed_steps: formatCompletedSteps(completed) });
  const system = renderTemplate(loop.p.system_prompt, params);
  const answer = await chat(loop.agent.llm, { system, messages: [{ role: 'user', content: prompt }], position: { role: 'planner', call } }, {});
  const parsed = parsePlannerOutput(answer.content);
  if (!parsed.ok) throw new Error(`planner answer could not be parsed: ${parsed.error}`);
  return parsed;
}

/** One step's ReAct loop: the executor sees its earlier steps, then this step's turns and tool results. */
async function executeStep(loop: LoopAgent, earlier: CompletedStep[], step: string): Promise<string> {
  const { p } = loop;
  const system = renderTemplate(p.executor_system_prompt, loop.params);
  const shown = p.executor_message_history_limit > 0 ? earlier.slice(-p.executor_message_history_limit) : [];
  const messages: ChatMessage[] = executorOpening(shown, step);
  for (let iteration = 0; iteration < p.executor_max_iterations; iteration++) {
    const position = { role: 'executor' as const, step: earlier.length, iteration };
    const response = await chat(loop.agent.executor_llm, { system, messages, tools: loop.specs, position }, {});
    messages.push({ role: 'assistant', content: response.content, tool_calls: response.tool_calls });
    if (response.tool_calls.length === 0) return response.content;
    for (const call of response.tool_calls) {
      messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: await runTool(loop, call.name, call.input), is_error: false });
    }
  }
  return `Executor iteration limit (${p.executor_max_iterations}) reached`;
}

async function runTool(loop: LoopAgent, name: string, input: Record<string, unknown>): Promise<string> {
  const tool = loop.tools.get(name);
  if (!tool) throw new Error(`tool "${name}" is not available to this agent`);
  const output = await tool.run(tool.input.parse(input) as never, {});
  return output.length <= TOOL_OUTPUT_MODEL_LIMIT ? output : `${output.slice(0, TOOL_OUTPUT_MODEL_LIMIT)}\n…[truncated]`;
}
