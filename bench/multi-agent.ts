/**
 * The benchmark's agent trees: a supervisor whose two steps each ask a one-step specialist (an
 * agent tool), the same supervisor whose steps call no tool, and the specialists' work done by
 * one agent — read from agent files as `perflow run` reads them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sparseParameters } from '../core/agent';
import { loadAgentFile, resolveRunIds } from '../client/run';
import type { PlanExecuteReflectInput } from '../workflows';

const plan = (...steps: string[]) => JSON.stringify({ steps, result: '' });
const final = (result: string) => JSON.stringify({ steps: [], result });

export interface TreeInputs {
  /** Two steps, each calling a specialist (a one-step plan_execute_and_reflect agent) once. */
  supervisor: PlanExecuteReflectInput;
  /** The same supervisor, its steps answering without a tool. */
  noCalls: PlanExecuteReflectInput;
  /** The specialists' two steps done by one agent. */
  oneAgent: PlanExecuteReflectInput;
}

/** The inputs, every model answering after `latencyMs`. */
export async function treeInputs(latencyMs: number): Promise<TreeInputs> {
  const dir = mkdtempSync(join(tmpdir(), 'perflow-bench-tree-'));
  try {
    const llm = (script: object) => ({ interface: 'scripted', parameters: { latency_ms: latencyMs }, script });
    const write = (name: string, agent: object) => {
      writeFileSync(join(dir, `${name}.json`), JSON.stringify({ type: 'plan_execute_and_reflect', ...agent }));
      return join(dir, `${name}.json`);
    };
    write('specialist', { name: 'specialist', llm: llm({ planner: [plan('work'), final('ok')], executor: [[{ content: 'done' }]] }) });
    const ask = (tool: string) => [{ tool_calls: [{ name: tool, input: { question: 'do the work' } }] }, { content: 'done' }];
    const supervisor = write('supervisor', {
      name: 'supervisor',
      llm: llm({ planner: [plan('ask a', 'ask b'), plan('ask b'), final('ok')], executor: [ask('a'), ask('b')] }),
      tools: ['a', 'b'].map((name) => ({ type: 'AgentTool', name, parameters: { agent: './specialist.json' } })),
    });
    const noCalls = write('no-calls', { name: 'no-calls', llm: llm({ planner: [plan('ask a', 'ask b'), plan('ask b'), final('ok')], executor: [[{ content: 'done' }], [{ content: 'done' }]] }) });
    const oneAgent = write('one-agent', { name: 'one-agent', llm: llm({ planner: [plan('work a', 'work b'), plan('work b'), final('ok')], executor: [[{ content: 'done' }], [{ content: 'done' }]] }) });
    const input = async (file: string): Promise<PlanExecuteReflectInput> => {
      const { agent, parameters } = await loadAgentFile(file);
      const { ids, parameters: rest } = resolveRunIds({ parameters });
      return { agent, question: 'bench tree', ...sparseParameters(rest), ids };
    };
    return { supervisor: await input(supervisor), noCalls: await input(noCalls), oneAgent: await input(oneAgent) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
