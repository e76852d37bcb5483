/**
 * Systems of agents through the CLI: the example supervisor (plan_execute_and_reflect) calls a
 * researcher (plan_and_execute) that calls an accountant (todo_list) — three levels, each a run
 * of its own — and the tree's rules: cycles and depth refused in one line, cancel reaches every
 * descendant, a root's budget covers the tree.
 */
import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nonEmptyLines, useCli } from '../support/cli';
import type { RunOutput } from '../../workflows/definitions';

jest.setTimeout(180_000);

const cli = useCli('multi-agent');
const perflow = cli.perflow;
const EXAMPLE = resolve(__dirname, '../../examples/multi-agent');

/** The workflow IDs of a run's descendants (its steps, their sub-agents' runs, …) that are runs of an agent. */
async function subRuns(rootId: string): Promise<Array<{ workflowId: string; type: string; status: string; memo: Record<string, unknown> }>> {
  const out: Array<{ workflowId: string; type: string; status: string; memo: Record<string, unknown> }> = [];
  for await (const w of cli.harness.client.workflow.list({ query: `WorkflowId STARTS_WITH "${rootId}/"` })) {
    if (w.type !== 'reactExecutor') out.push({ workflowId: w.workflowId, type: w.type, status: w.status.name, memo: (w.memo ?? {}) as Record<string, unknown> });
  }
  return out.sort((a, b) => a.workflowId.localeCompare(b.workflowId));
}

describe('an agent as a tool of another', () => {
  it('a three-level tree of mixed agent types answers; each sub-agent is a run of its own, linked in memory', async () => {
    const r = await perflow(['run', '--agent', join(EXAMPLE, 'supervisor.json'), '--question', 'What does the trip cost?', '--wait', '--json'], {}, 150_000);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as RunOutput & { workflow_id: string };
    expect(out.response).toMatch(/^The trip costs 445 \(3 nights at 120 and 85 for travel\); the accountant checked it: 445/);
    // supervisor → researcher → accountant, and supervisor → accountant.
    const runs = await subRuns(out.workflow_id);
    expect(runs.map((w) => [w.workflowId.slice(out.workflow_id.length), w.type, w.status])).toEqual([
      ['/step-1/agent-1', 'planAndExecute', 'COMPLETED'],
      ['/step-1/agent-1/step-1/agent-1', 'todoList', 'COMPLETED'],
      ['/step-2/agent-1', 'todoList', 'COMPLETED'],
    ]);
    expect(runs[1].memo).toMatchObject({ agent: 'trip-accountant', agent_path: ['trip-supervisor', 'trip-researcher', 'trip-accountant'], root_workflow_id: out.workflow_id, parent_workflow_id: `${out.workflow_id}/step-1/agent-1/step-1` });
    // The supervisor's memory links the call to the sub-agent's run and memory.
    const memory = await perflow(['memory', out.memory_id], { MONGODB_URI: cli.memoryUri });
    expect(memory.code).toBe(0);
    expect(memory.stdout).toMatch(new RegExp(`tool researcher [^\\n]*→ The trip costs 445[\\s\\S]*?\\n\\s+sub-agent run ${out.workflow_id}/step-1/agent-1, memory [0-9a-f-]{36}`));
    expect(memory.stdout).toMatch(/tool accountant [^\n]*→ 445/);
  });

  it('a cycle of agent files is refused before anything starts, naming the chain', async () => {
    const a = cli.agentFile('cycle-a', { name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, tools: [{ type: 'AgentTool', name: 'b', parameters: { agent: './cycle-b.json' } }] });
    cli.agentFile('cycle-b', { name: 'b', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, tools: [{ type: 'AgentTool', name: 'a', parameters: { agent: './cycle-a.json' } }] });
    const r = await perflow(['run', '--agent', a, '--question', 'loop?']);
    expect(r.code).toBe(2);
    expect(nonEmptyLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/cycle-b\.json: tools\[0\] "a": agent tools form a cycle \(.*cycle-a\.json → .*cycle-b\.json → .*cycle-a\.json\); an agent cannot be its own sub-agent/);
  });

  it('a tree deeper than the limit is refused in one line', async () => {
    const level = (n: number) => ({ name: `l${n}`, type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, tools: n < 5 ? [{ type: 'AgentTool', parameters: { agent: `./deep-${n + 1}.json` } }] : [] });
    for (let n = 5; n >= 1; n--) cli.agentFile(`deep-${n}`, level(n));
    const r = await perflow(['run', '--agent', join(cli.dir, 'deep-1.json'), '--question', 'deep?']);
    expect(r.code).toBe(2);
    expect(nonEmptyLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/the agent tree is deeper than 4 levels \(.*deep-1\.json → .*deep-5\.json\)/);
  });

  it('a sub-agent file that is missing is named with the entry that names it', async () => {
    cpSync(join(EXAMPLE, 'supervisor.json'), join(cli.dir, 'lonely-supervisor.json'));
    const r = await perflow(['run', '--agent', join(cli.dir, 'lonely-supervisor.json'), '--question', 'alone?']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/lonely-supervisor\.json: tools\[0\] "researcher": agent file not found: .*researcher\.json/);
  });
});
