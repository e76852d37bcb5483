/**
 * Systems of agents through the CLI: the example supervisor (plan_execute_and_reflect) calls a
 * researcher (plan_and_execute) that calls an accountant (todo_list) — three levels, each a run
 * of its own — and the tree's rules: cycles and depth refused in one line, cancel reaches every
 * descendant, a root's budget covers the tree.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nonEmptyLines, useCli } from '../support/cli';
import { progressQuery, type RunInput, type RunOutput } from '../../workflows/definitions';
import type { RunEvent } from '../../core/run-events';
import { TenantBudgets } from '../../stores/tenant-budgets';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';

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
    expect(out.response).toBe("The trip costs 445 (3 nights at 120 and 85 for travel); checked: The accountant's total is 445 too.");
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

    // One stream for the tree: each run's events in order and gapless, the descendants' with their agent path.
    const watched = await perflow(['watch', out.workflow_id, '--json']);
    expect(watched.code).toBe(0);
    const events = watched.stdout.trim().split('\n').map((l) => JSON.parse(l) as RunEvent);
    const byRun = new Map<string, RunEvent[]>();
    for (const e of events) byRun.set(e.run ?? out.workflow_id, [...(byRun.get(e.run ?? out.workflow_id) ?? []), e]);
    expect([...byRun.keys()].sort()).toEqual([out.workflow_id, ...runs.map((r) => r.workflowId)].sort());
    for (const [run, list] of byRun) {
      expect(list.map((e) => e.offset)).toEqual(list.map((_, i) => i));
      expect([list[0].type, list.at(-1)!.type]).toEqual(['run_started', 'run_finished']);
      expect(list.every((e) => JSON.stringify(e.agent_path) === JSON.stringify(run === out.workflow_id ? undefined : runs.find((r) => r.workflowId === run)!.memo.agent_path))).toBe(true);
    }
    // A sub-agent's events come after the tool call that started its run, and before that call's result.
    const at = (pred: (e: RunEvent) => boolean) => events.findIndex(pred);
    const researcherCall = at((e) => e.type === 'tool_call' && e.sub_run?.workflow_id === `${out.workflow_id}/step-1/agent-1`);
    const researcherStart = at((e) => e.run === `${out.workflow_id}/step-1/agent-1` && e.type === 'run_started');
    const researcherResult = at((e) => e.run === undefined && e.type === 'tool_result' && e.tool === 'researcher');
    expect(researcherCall).toBeGreaterThanOrEqual(0);
    expect(researcherStart).toBeGreaterThan(researcherCall);
    expect(researcherResult).toBeGreaterThan(at((e) => e.run === `${out.workflow_id}/step-1/agent-1` && e.type === 'run_finished'));
    // As a person reads it: the grandchild's lines two levels in.
    const text = await perflow(['watch', out.workflow_id]);
    expect(text.stdout).toMatch(new RegExp(`^  → researcher .* \\(sub-agent trip-researcher, run ${out.workflow_id}/step-1/agent-1\\)$`, 'm'));
    expect(text.stdout).toMatch(new RegExp(`^ {8}run ${out.workflow_id}/step-1/agent-1/step-1/agent-1 started: trip-accountant \\(todo_list\\)$`, 'm'));
    expect(text.stdout).toMatch(/^ {8} {2}← CalculatorTool: 445$/m);

    // status shows the tree: each sub-agent's run with its status, steps and cost.
    const status = JSON.parse((await perflow(['status', out.workflow_id, '--json'])).stdout) as { status: string; sub_agents: Array<{ workflow_id: string; agent_path: string[]; status: string; steps_executed: number }> };
    expect(status.status).toBe('completed');
    expect(status.sub_agents.map((r) => [r.workflow_id.slice(out.workflow_id.length), r.agent_path.join(' → '), r.status, r.steps_executed])).toEqual([
      ['/step-1/agent-1', 'trip-supervisor → trip-researcher', 'completed', 1],
      ['/step-1/agent-1/step-1/agent-1', 'trip-supervisor → trip-researcher → trip-accountant', 'completed', 1],
      ['/step-2/agent-1', 'trip-supervisor → trip-accountant', 'completed', 1],
    ]);
    const statusText = (await perflow(['status', out.workflow_id])).stdout;
    expect(statusText).toMatch(new RegExp(`^  sub-agents:\\n {4}trip-researcher \\(${out.workflow_id}/step-1/agent-1\\): completed, 1 steps, cost unknown\\n {6}trip-accountant `, 'm'));
  });

  it('eval from-runs leaves sub-agent runs out: a suite of the tree is a suite of its roots', async () => {
    const file = join(cli.dir, 'from-runs.json');
    const sub = await perflow(['eval', 'from-runs', '--agent', 'trip-researcher', '--out', file]);
    expect(sub.code).toBe(1);
    expect(sub.stderr).toMatch(/no completed run of agent trip-researcher to make a suite of; nothing written/);
    const roots = await perflow(['eval', 'from-runs', '--agent', 'trip-supervisor', '--out', file]);
    expect(roots.stderr).toBe('');
    const suite = JSON.parse(readFileSync(file, 'utf8')) as { cases: Array<{ question: string }> };
    expect(suite.cases.length).toBeGreaterThan(0);
    expect(suite.cases.every((c) => c.question === 'What does the trip cost?')).toBe(true);
  });

  it("a fork of a tree reuses the sub-agents' work before its step; diff shows the agent tool calls; an eval over the supervisor sees the tree", async () => {
    const a = JSON.parse((await perflow(['run', '--agent', join(EXAMPLE, 'supervisor.json'), '--question', 'What does the trip cost?', '--wait', '--json'], {}, 150_000)).stdout) as RunOutput & { workflow_id: string };
    const forked = await perflow(['fork', a.workflow_id, '--from-step', '2', '--wait', '--json'], {}, 150_000);
    expect(forked.stderr).toBe('');
    const b = JSON.parse(forked.stdout) as RunOutput & { workflow_id: string };
    expect(b.response).toBe(a.response);
    // Step 1's researcher ran in the source only; the fork's step 2 called the accountant anew.
    const runsOfFork = await subRuns(b.workflow_id);
    expect(runsOfFork.map((r) => r.workflowId.slice(b.workflow_id.length))).toEqual(['/step-2/agent-1']);
    const diff = JSON.parse((await perflow(['diff', a.workflow_id, b.workflow_id, '--json'])).stdout) as { steps: Array<{ same: boolean; a?: { tool_calls: Array<{ tool: string }>; usage: { input_tokens: number } } }> };
    expect(diff.steps.map((s) => s.same)).toEqual([true, true]);
    expect(diff.steps.map((s) => s.a!.tool_calls.map((c) => c.tool))).toEqual([['researcher'], ['accountant']]);
    // A step's usage in the diff includes its sub-agent's (the researcher's run alone reads thousands of tokens).
    const researcher = (await cli.harness.client.workflow.getHandle(`${a.workflow_id}/step-1/agent-1`).result()) as RunOutput;
    expect(diff.steps[0].a!.usage.input_tokens).toBeGreaterThan(researcher.usage.input_tokens);
    // Node by node: step 1's researcher is one run both sides share; step 2's accountants are two runs alike.
    type Node = { step: number; tool: string; a?: string; b?: string; shared?: boolean; same: boolean; diff?: { settings: Array<{ key: string; a: unknown; b: unknown }>; sub_agents: Node[] } };
    const nodes = (diff as unknown as { sub_agents: Node[] }).sub_agents;
    expect(nodes.map((n) => [n.step, n.tool, n.a, n.b, n.shared ?? false, n.same])).toEqual([
      [0, 'researcher', `${a.workflow_id}/step-1/agent-1`, `${a.workflow_id}/step-1/agent-1`, true, true],
      [1, 'accountant', `${a.workflow_id}/step-2/agent-1`, `${b.workflow_id}/step-2/agent-1`, false, true],
    ]);

    // A tree whose grandchild's agent file changed: every node on the path to it differs, and says why.
    const changed = join(cli.dir, 'changed-tree');
    cpSync(EXAMPLE, changed, { recursive: true });
    const accountant = JSON.parse(readFileSync(join(changed, 'accountant.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(changed, 'accountant.json'), JSON.stringify({ ...accountant, parameters: { executor_max_iterations: 7 } }));
    const c = JSON.parse((await perflow(['fork', a.workflow_id, '--from-step', '1', '--agent', join(changed, 'supervisor.json'), '--wait', '--json'], {}, 150_000)).stdout) as { workflow_id: string };
    const treeDiff = await perflow(['diff', a.workflow_id, c.workflow_id, '--json']);
    const tree = (JSON.parse(treeDiff.stdout) as { sub_agents: Node[] }).sub_agents;
    expect(tree.map((n) => [n.tool, n.same])).toEqual([['researcher', false], ['accountant', false]]);
    const grandchild = tree[0].diff!.sub_agents;
    expect(grandchild.map((n) => [n.tool, n.a, n.b, n.same])).toEqual([['accountant', `${a.workflow_id}/step-1/agent-1/step-1/agent-1`, `${c.workflow_id}/step-1/agent-1/step-1/agent-1`, false]]);
    expect(grandchild[0].diff!.settings).toEqual([{ key: 'parameters.executor_max_iterations', a: expect.any(Number), b: 7 }]);
    expect(tree[0].diff!.settings).toEqual([]);
    const treeText = (await perflow(['diff', a.workflow_id, c.workflow_id])).stdout;
    expect(treeText).toMatch(new RegExp(`^≠ step 1 researcher: A ${a.workflow_id}/step-1/agent-1 \\| B ${c.workflow_id}/step-1/agent-1$[\\s\\S]*^ {8}≠ parameters\\.executor_max_iterations: A \\d+ \\| B 7$`, 'm'));

    writeFileSync(
      join(cli.dir, 'tree-suite.json'),
      JSON.stringify({ name: 'tree', agent: join(EXAMPLE, 'supervisor.json'), cases: [{ id: 'cost', question: 'What does the trip cost?', checks: [{ contains: '445' }, { tool_called: 'researcher' }, { tool_called: 'accountant' }] }] }),
    );
    const evaluated = await perflow(['eval', join(cli.dir, 'tree-suite.json'), '--json'], {}, 150_000);
    expect(evaluated.code).toBe(0);
    const result = JSON.parse(evaluated.stdout) as { passed: number; failed: number; cases: Array<{ checks: Array<{ check: string; passed: boolean }> }> };
    expect(result).toMatchObject({ passed: 1, failed: 0 });
    expect(result.cases[0].checks.every((c) => c.passed)).toBe(true);
  });

  it("a root's max_cost_usd covers its sub-agents: each gets what is left, their cost counts in the root's and the tenant's", async () => {
    const PRICE = { input_per_million: 1, output_per_million: 1 };
    for (const f of ['supervisor', 'researcher', 'accountant']) {
      const agent = JSON.parse(readFileSync(join(EXAMPLE, `${f}.json`), 'utf8')) as { llm: Record<string, unknown> };
      if (f !== 'researcher') agent.llm.price = PRICE;
      writeFileSync(join(cli.dir, `priced-${f}.json`), JSON.stringify(agent).replaceAll('./', './priced-'));
    }
    // A root with a budget needs prices for the whole tree: the researcher has none.
    const refused = await perflow(['run', '--agent', join(cli.dir, 'priced-supervisor.json'), '--question', 'cost?', '--param', 'max_cost_usd=1']);
    expect(refused.code).toBe(2);
    expect(nonEmptyLines(refused.stderr)).toHaveLength(1);
    expect(refused.stderr).toMatch(/tools\[0\] "researcher" \(\.\/priced-researcher\.json\): parameters\.max_cost_usd: .*\(the root's budget covers its sub-agents\)/);

    const researcher = JSON.parse(readFileSync(join(cli.dir, 'priced-researcher.json'), 'utf8')) as { llm: Record<string, unknown> };
    researcher.llm.price = PRICE;
    writeFileSync(join(cli.dir, 'priced-researcher.json'), JSON.stringify(researcher));
    const budgets = new TenantBudgets(cli.harness.db);
    await budgets.setCap('tree-tenant', 100, 'test', new Date());
    const r = await perflow(['run', '--agent', join(cli.dir, 'priced-supervisor.json'), '--question', 'cost?', '--param', 'max_cost_usd=1', '--param', 'tenant_id=tree-tenant', '--wait', '--json'], {}, 150_000);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as RunOutput & { workflow_id: string };
    const client = cli.harness.client;
    const [researcherRun, accountantRun] = await Promise.all([`${out.workflow_id}/step-1/agent-1`, `${out.workflow_id}/step-2/agent-1`].map((id) => client.workflow.getHandle(id).result() as Promise<RunOutput>));
    const children = researcherRun.usage.cost_usd! + accountantRun.usage.cost_usd!;
    expect(researcherRun.usage.cost_usd).toBeGreaterThan(0);
    // The root's cost is its own calls' and its sub-agents' (theirs include their own sub-agents').
    expect(out.usage.cost_usd).toBeGreaterThan(children);
    expect(out.usage.input_tokens).toBeGreaterThan(researcherRun.usage.input_tokens + accountantRun.usage.input_tokens);
    // A sub-agent starts with what the root had left: below the root's cap, by what the root spent before.
    const started = (await client.workflow.getHandle(`${out.workflow_id}/step-2/agent-1`).fetchHistory()).events![0].workflowExecutionStartedEventAttributes!;
    const accountantInput = defaultPayloadConverter.fromPayload<RunInput>(started.input!.payloads![0] as Payload);
    expect(accountantInput.parameters.max_cost_usd).toBeLessThan(1 - researcherRun.usage.cost_usd!);
    expect(accountantInput.parameters.tenant_id).toBe('tree-tenant');
    // Every model call of the tree counted in the tenant's spend.
    expect(await budgets.spent('tree-tenant', new Date().toISOString().slice(0, 10))).toBeCloseTo(out.usage.cost_usd!, 9);
  });

  it('a sub-agent at the budget stops and the root waits; raise-budget ROOT lets the tree go on', async () => {
    // The researcher's model costs a thousand times the others': its run passes what the root has left.
    const supervisor = readFileSync(join(cli.dir, 'priced-supervisor.json'), 'utf8').replace('./priced-researcher.json', './dear-researcher.json');
    writeFileSync(join(cli.dir, 'dear-supervisor.json'), supervisor);
    const researcherFile = JSON.parse(readFileSync(join(cli.dir, 'priced-researcher.json'), 'utf8')) as { llm: Record<string, unknown> };
    researcherFile.llm.price = { input_per_million: 1000, output_per_million: 1000 };
    (researcherFile.llm.script as Record<string, unknown>).summary = ['Stopped at the budget: the trip costs about 445.'];
    writeFileSync(join(cli.dir, 'dear-researcher.json'), JSON.stringify(researcherFile));
    const cap = 0.5;
    const started = JSON.parse((await perflow(['run', '--agent', join(cli.dir, 'dear-supervisor.json'), '--question', 'cost?', '--param', `max_cost_usd=${cap}`, '--json'])).stdout) as { workflow_id: string };
    const root = cli.harness.client.workflow.getHandle(started.workflow_id);
    for (let i = 0; (await root.query(progressQuery).catch(() => undefined))?.status !== 'awaiting_budget'; i++) {
      if (i > 600) throw new Error('the root never waited at its budget');
      await new Promise((r) => setTimeout(r, 100));
    }
    const researcher = (await cli.harness.client.workflow.getHandle(`${started.workflow_id}/step-1/agent-1`).result()) as RunOutput;
    expect(researcher.response).toMatch(/budget/i);
    const pending = await perflow(['pending', '--json']);
    expect((JSON.parse(pending.stdout) as Array<{ workflow_id: string; waiting_for: string }>).filter((p) => p.workflow_id.startsWith(started.workflow_id))).toEqual([expect.objectContaining({ workflow_id: started.workflow_id, waiting_for: 'budget' })]);
    const raised = await perflow(['raise-budget', started.workflow_id, '--usd', '10', '--json']);
    expect(raised.stderr).toBe('');
    expect(JSON.parse(raised.stdout)).toMatchObject({ workflow_id: started.workflow_id, kind: 'budget', action: 'raise' });
    const out = (await root.result()) as RunOutput;
    expect(out.response).toMatch(/checked: The accountant's total is 445 too/);
    expect(out.usage.cost_usd).toBeGreaterThan(cap);
  });

  it('cancel ROOT ends every descendant', async () => {
    // The accountant's calculator waits for approval: the tree holds still, three levels deep.
    for (const f of ['supervisor', 'researcher', 'accountant']) {
      const agent = JSON.parse(readFileSync(join(EXAMPLE, `${f}.json`), 'utf8')) as { tools: unknown[] };
      if (f === 'accountant') agent.tools = [{ type: 'CalculatorTool', requires_approval: true }];
      writeFileSync(join(cli.dir, `held-${f}.json`), JSON.stringify(agent).replaceAll('./', './held-'));
    }
    const started = await perflow(['run', '--agent', join(cli.dir, 'held-supervisor.json'), '--question', 'held?', '--json']);
    expect(started.stderr).toBe('');
    const root = (JSON.parse(started.stdout) as { workflow_id: string }).workflow_id;
    const grandchild = cli.harness.client.workflow.getHandle(`${root}/step-1/agent-1/step-1/agent-1`);
    for (let i = 0; (await grandchild.query(progressQuery).catch(() => undefined))?.pending?.[0]?.kind !== 'tool'; i++) {
      if (i > 300) throw new Error('the grandchild never waited');
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await perflow(['cancel', root, '--json']);
    expect(r.code).toBe(0);
    await expect(cli.harness.client.workflow.getHandle(root).result()).rejects.toThrow();
    // Every workflow of the tree has ended: the runs cancelled, the steps between them too.
    const tree: Array<[string, string]> = [];
    for await (const w of cli.harness.client.workflow.list({ query: `WorkflowId STARTS_WITH "${root}"` })) tree.push([w.workflowId.slice(root.length) || '(root)', (await cli.harness.client.workflow.getHandle(w.workflowId).describe()).status.name]);
    expect(tree.sort()).toEqual([
      ['(root)', 'CANCELLED'],
      ['/step-1', 'CANCELLED'],
      ['/step-1/agent-1', 'CANCELLED'],
      ['/step-1/agent-1/step-1', 'CANCELLED'],
      ['/step-1/agent-1/step-1/agent-1', 'CANCELLED'],
      ['/step-1/agent-1/step-1/agent-1/step-1', 'CANCELLED'],
    ]);
  });

  it('two agent tools called in one turn run at once', async () => {
    for (const f of ['researcher', 'accountant']) {
      const agent = JSON.parse(readFileSync(join(EXAMPLE, `${f}.json`), 'utf8')) as { llm: Record<string, unknown> };
      agent.llm.parameters = { latency_ms: 400 };
      writeFileSync(join(cli.dir, `slow-${f}.json`), JSON.stringify(agent).replaceAll('./', './slow-'));
    }
    const supervisor = {
      name: 'both-at-once',
      type: 'plan_execute_and_reflect',
      llm: {
        interface: 'scripted',
        script: {
          planner: [JSON.stringify({ steps: ['Ask both'], result: '' }), JSON.stringify({ steps: [], result: '{{step_result:1}}' })],
          executor: [[{ tool_calls: [{ name: 'researcher', input: { question: 'What does the trip cost?' } }, { name: 'accountant', input: { question: 'Add it up.' } }] }, { content: 'both answered' }]],
        },
      },
      tools: [
        { type: 'AgentTool', name: 'researcher', parameters: { agent: './slow-researcher.json' } },
        { type: 'AgentTool', name: 'accountant', parameters: { agent: './slow-accountant.json' } },
      ],
    };
    const r = await perflow(['run', '--agent', cli.agentFile('both-at-once', supervisor), '--question', 'both?', '--wait', '--json'], {}, 150_000);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as RunOutput & { workflow_id: string };
    expect(out.response).toBe('both answered');
    const span = async (id: string) => {
      const d = await cli.harness.client.workflow.getHandle(id).describe();
      return [d.startTime.getTime(), d.closeTime!.getTime()];
    };
    const [[aStart, aEnd], [bStart, bEnd]] = await Promise.all([span(`${out.workflow_id}/step-1/agent-1`), span(`${out.workflow_id}/step-1/agent-2`)]);
    // Each began before the other ended.
    expect(aStart).toBeLessThan(bEnd);
    expect(bStart).toBeLessThan(aEnd);
    // The model got both answers, in the order it asked.
    const memory = await perflow(['memory', out.memory_id], { MONGODB_URI: cli.memoryUri });
    expect(memory.stdout).toMatch(/tool researcher [^\n]*→ The trip costs 445[\s\S]*tool accountant [^\n]*→ 445/);
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
