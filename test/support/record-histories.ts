/**
 * Runs the scenarios of test/support/scenarios.ts against real servers and saves their event
 * histories as test/fixtures/histories/<name>.binpb.
 * Usage: npm run record-histories [-- NAME...]   (only the named scenarios when names are given)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { startServers, stopServersOnSignals } from '../../servers';
import { createHarness, runInput, type Harness } from './harness';
import { SCENARIOS, type Scenario } from './scenarios';
import { forkSource } from '../../client/fork';
import { TypedSearchAttributes } from '@temporalio/common';
import { EVAL_WORKFLOW_TYPE, SearchAttributes, workflowTypeFor, type RunInput, type RunOutput } from '../../workflows/definitions';
import { loadAgentFile, resolveRunIds } from '../../client/run';
import { sparseParameters } from '../../core/agent';
import type { EvalInput } from '../../workflows/eval';
import { randomUUID } from 'node:crypto';
import { startWireServer } from './wire-server';
import { startA2ARemote } from './a2a-remote';
import { uniqueTaskQueue, withEnv } from './env';

/** The LLM task queue the recording worker serves too, for the scenarios whose runs name one. */
const LLM_QUEUE = uniqueTaskQueue('perflow-llm');

async function main(): Promise<void> {
  stopServersOnSignals();
  const servers = await startServers(process.env);
  process.env.TEMPORAL_ADDRESS = servers.temporal.address;
  process.env.MONGODB_URI = servers.mongo.uri;
  const harness = await createHarness({ llm: { taskQueue: LLM_QUEUE } });
  console.log(`recording on task queue ${harness.taskQueue}`);
  try {
    const only = process.argv.slice(2);
    const unknown = only.filter((n) => !SCENARIOS.some((s) => s.name === n));
    if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
    for (const scenario of SCENARIOS.filter((s) => only.length === 0 || only.includes(s.name))) {
      await withWireServer(scenario, (agent) => recordScenario(harness, scenario, agent));
    }
  } finally {
    await harness.close();
    await servers.stop();
  }
}

/** Runs one scenario and saves its histories (and its children's); `agentFile` is its agent file's content or path. */
async function recordScenario(harness: Harness, scenario: Scenario, agentFile: unknown): Promise<void> {
  let input: RunInput = typeof agentFile === 'string' ? await fileRunInput(agentFile, scenario.question) : runInput(agentFile, scenario.question, scenario.params);
  if (scenario.forkOf) {
    // The source runs first (not saved); the fork's input is what `perflow fork` builds.
    const source = await harness.client.workflow.start(workflowTypeFor(input.agent.type), {
      taskQueue: harness.taskQueue,
      workflowId: `history-${scenario.name}-source`,
      args: [runInput(scenario.forkOf.agent, scenario.forkOf.question)],
    });
    await source.result();
    input = { ...input, fork: await forkSource(harness.client, source.workflowId, scenario.forkOf.step) };
  }
  if (scenario.queuedBehind) {
    // As `perflow run --memory-id M --on-busy enqueue` starts it: the conversation of a run still going, and that run to wait for.
    const { agent, question, params } = scenario.queuedBehind;
    const ids = { memory_id: randomUUID() };
    const earlier = await harness.client.workflow.start(workflowTypeFor(runInput(agent, question).agent.type), {
      taskQueue: harness.taskQueue,
      workflowId: `history-${scenario.name}-earlier`,
      args: [{ ...runInput(agent, question, params), ids }],
    });
    input = { ...input, ids, continues_conversation: true, after: [earlier.workflowId] };
  }
  if (scenario.llmQueue) input = { ...input, llm_task_queue: LLM_QUEUE };
  await scenario.setup?.(harness.db);
  const handle = scenario.evalCases
    ? await startEvalScenario(harness, scenario.name, agentFile, scenario.evalCases)
    : await harness.client.workflow.start<(i: typeof input) => Promise<RunOutput>>(workflowTypeFor(input.agent.type), {
    taskQueue: harness.taskQueue,
    workflowId: `history-${scenario.name}`,
    args: [input],
    // As `perflow run` starts runs, so histories hold what the workflow does with them.
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SearchAttributes.agent, value: 'history' },
      { key: SearchAttributes.status, value: 'running' },
      { key: SearchAttributes.pending, value: 'none' },
      ...(input.parameters.tenant_id !== undefined ? [{ key: SearchAttributes.tenant, value: input.parameters.tenant_id }] : []),
    ]),
  });
  await scenario.interact?.(handle.workflowId, harness.client, harness.db);
  const outcome = await handle.result().then(
    (out) => `completed: ${JSON.stringify(out).slice(0, 60)}`,
    (err: Error) => `failed: ${err.message}`,
  );
  if (outcome.startsWith('failed') !== Boolean(scenario.fails)) throw new Error(`${scenario.name} ${outcome}`);
  // Binary protobuf: exact, compact, and independent of the JSON mapping's quirks.
  const file = join(__dirname, '..', 'fixtures', 'histories', `${scenario.name}.binpb`);
  // A run that continued-as-new has one history per execution: <name>.run-<k>.binpb, oldest first.
  const runIds: string[] = [];
  for await (const w of harness.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runIds.unshift(w.runId);
  const histories = await Promise.all((runIds.length > 0 ? runIds : [undefined]).map((runId) => harness.client.workflow.getHandle(handle.workflowId, runId).fetchHistory()));
  if (histories.length === 1) {
    writeFileSync(file, temporal.api.history.v1.History.encode(histories[0]).finish());
  } else {
    // A long chain may keep only the executions that hold a patch's marker, and the last.
    const marked = (h: (typeof histories)[number]) =>
      (h.events ?? []).some((e) => Object.values(e.markerRecordedEventAttributes?.details ?? {}).some((d) => (d.payloads ?? []).some((p) => Buffer.from(p.data ?? []).toString().includes(`"${scenario.onlyExecutionsWith}"`))));
    for (const [k, history] of histories.entries()) {
      if (scenario.onlyExecutionsWith !== undefined && k < histories.length - 1 && !marked(history)) continue;
      writeFileSync(file.replace(/\.binpb$/, `.run-${k + 1}.binpb`), temporal.api.history.v1.History.encode(history).finish());
    }
  }
  console.log(`${scenario.name}: ${outcome} → ${file} (${histories.length} execution(s))`);
  // The executor (and todo) child workflows too: their code is replayed as well. A fork's
  // first steps have none (they are reused), so the children are read off the run's history.
  // An eval's children are ordinary runs (recorded as scenarios of their own): its history alone is kept (so with `runOnly`).
  // A tree's children have children of their own (sub-agents' runs): every level is kept, as `<name>.step-1.agent-1.step-1.binpb`.
  const childrenOf = (hs: typeof histories) => hs.flatMap((h) => (h.events ?? []).flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []));
  const queue = scenario.evalCases || scenario.runOnly ? [] : [...new Set(childrenOf(histories))];
  for (const childId of queue) {
    const suffix = childId.slice(`${handle.workflowId}/`.length).replaceAll('/', '.');
    const history = await harness.client.workflow.getHandle(childId).fetchHistory();
    writeFileSync(file.replace(/\.binpb$/, `.${suffix}.binpb`), temporal.api.history.v1.History.encode(history).finish());
    for (const grandchild of childrenOf([history])) if (!queue.includes(grandchild)) queue.push(grandchild);
  }
}

/**
 * Runs `record` with the scenario's agent file. A scenario on a wire server has one started for
 * it, its replies queued and its variables set while `record` runs; its agent file is computed from the server's URL.
 */
async function withWireServer(scenario: Scenario, record: (agentFile: unknown) => Promise<void>): Promise<void> {
  const { wire, agent } = scenario;
  if (scenario.a2aRemote) {
    const remote = await startA2ARemote();
    try {
      return await record((agent as (url: string) => unknown)(remote.url));
    } finally {
      await remote.close();
    }
  }
  if (!wire) {
    if (typeof agent === 'function') throw new Error(`scenario ${scenario.name}: its agent is computed from a wire server's URL, so it needs \`wire\``);
    return record(agent);
  }
  const server = await startWireServer();
  server.reply(...wire.replies);
  const restoreEnv = withEnv(wire.env?.(server.url) ?? {});
  try {
    await record(typeof agent === 'function' ? (agent as (url: string) => unknown)(server.url) : agent);
    const unanswered = wire.replies.length - server.requests.length;
    if (unanswered > 0) throw new Error(`scenario ${scenario.name}: ${unanswered} of its wire replies were never asked for`);
  } finally {
    restoreEnv();
    await server.close();
  }
}

/** A run's input from an agent file on disk, its agent tools' files read as `perflow run` reads them. */
async function fileRunInput(file: string, question: string): Promise<RunInput> {
  const { agent, parameters } = await loadAgentFile(file);
  const { ids, parameters: rest } = resolveRunIds({ parameters });
  return { agent, question, ...sparseParameters(rest), ids };
}

/** Starts the eval workflow over `cases` as `perflow eval` does (fresh memory IDs per case), as `history-<name>`. */
function startEvalScenario(harness: Harness, name: string, agentFile: unknown, cases: NonNullable<Scenario['evalCases']>) {
  const { agent } = runInput(agentFile, '');
  const input: EvalInput = {
    eval_id: `history-${name}`,
    suite: name,
    agent,
    concurrency: 1,
    cases: cases.map((c) => {
      const { parameters, parameter_defaults } = runInput(agentFile, c.question);
      const ids = { memory_id: randomUUID(), parent_interaction_id: randomUUID(), executor_agent_memory_id: randomUUID(), executor_agent_parent_interaction_id: randomUUID() };
      return { ...c, sparse: { parameters, ...(parameter_defaults !== undefined ? { parameter_defaults } : {}) }, ids };
    }),
  };
  return harness.client.workflow.start<(i: EvalInput) => Promise<unknown>>(EVAL_WORKFLOW_TYPE, { taskQueue: harness.taskQueue, workflowId: input.eval_id, args: [input] });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
