/**
 * Evals from the client: loading a suite (every case's parameters checked before anything
 * starts), starting the eval workflow, following it, and reading, listing and comparing results.
 */
import { packageVersion } from './package-root';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { agentTypeSpec, sparseParameters, type AgentDefinition, type ResolvedParameters } from '../core/agent';
import { compareEvals, tallyEval } from '../core/eval/results';
import { EvalSuiteError, parseSuite } from '../core/eval/suite';
import type { CaseComparison, EvalCase, EvalComparison, EvalResult, EvalSuite } from '../core/eval/types';
import { listEvals as listStoredEvals, loadEval } from '../stores/evals';
import { EVAL_WORKFLOW_TYPE, evalProgressQuery, evalScoredQuery, type EvalProgress } from '../workflows/definitions';
import type { EvalInput, perflowEval } from '../workflows';
import { diffRuns, type RunDiff } from './diff';
import { isNotFound, PerflowError } from './errors';
import { readJsonFile } from './json-file';
import { withMemory, type StoresClient } from './stores';
import { TENANT_REQUIRED } from '../core/worker-policy';
import type { PerflowClient } from './connect';
import { END_STATUS } from './watch';
import { agentFromJson, resolveRunIds, slug, type LoadAgentFileOptions } from './run';
import { readSubAgentFiles } from './sub-agents';

export type { EvalProgress };

export interface LoadedSuite {
  suite: EvalSuite;
  agent: AgentDefinition;
  /** Each case with its resolved run parameters (suite's, then the case's, then the command line's). */
  cases: { case: EvalCase; parameters: ResolvedParameters }[];
  /** Warnings about the parameters, one line each (named by case). */
  warnings: string[];
}

export interface LoadSuiteOptions extends LoadAgentFileOptions {
  /** The agent file, over the suite's `agent` (which is relative to the suite file). */
  agent?: string;
  /** Run parameters over the suite's and the cases' (`--param`). */
  params?: Record<string, unknown>;
}

/** Reads a suite file and its agent; every problem (a case's bad parameter too) is one line naming where, before anything runs. */
export async function loadSuite(file: string, o: LoadSuiteOptions = {}): Promise<LoadedSuite> {
  return suiteFromJson(await readJsonFile(file, 'suite file'), file, dirname(file), o);
}

/** A suite given as JSON (`where` names it in errors; its `agent` is relative to `dir`), checked as {@link loadSuite} checks a file. */
export async function suiteFromJson(json: unknown, where: string, dir: string, o: LoadSuiteOptions = {}): Promise<LoadedSuite> {
  let suite: EvalSuite;
  try {
    suite = parseSuite(json, where);
  } catch (err) {
    if (err instanceof EvalSuiteError) throw new PerflowError('invalid', err.message, { cause: err });
    throw err;
  }
  const agentFile = o.agent ?? (suite.agent !== undefined ? resolve(dir, suite.agent) : undefined);
  if (agentFile === undefined) throw new PerflowError('invalid', `${where}: agent: the suite names no agent file; add "agent" or pass --agent FILE`);
  const agentJson = await readJsonFile(agentFile, 'agent file');
  const subAgentFiles = await readSubAgentFiles(agentJson, agentFile, { within: o.subAgentsWithin });
  const { agent } = agentFromJson(agentJson, agentFile, {}, { ...o, subAgentFiles });
  const warnings: string[] = [];
  const cases = suite.cases.map((c, i) => {
    const params = { ...suite.params, ...c.params, ...o.params };
    const loaded = agentFromJson(agentJson, `${where}: cases[${i}] (${c.id})`, params, { ...o, subAgentFiles });
    warnings.push(...loaded.warnings.map((w) => `case ${c.id}: ${w}`));
    return { case: c, parameters: loaded.parameters };
  });
  return { suite, agent, cases, warnings };
}

export interface StartEvalOptions {
  suite: LoadedSuite;
  /** Most case runs at once. @default 4 */
  concurrency?: number;
  /** The task queue of the eval and its runs. @default the client's (PERFLOW_TASK_QUEUE) */
  taskQueue?: string;
  /** The task queue of its model calls. @default the client's (PERFLOW_LLM_TASK_QUEUE) */
  llmTaskQueue?: string;
  /** The eval's ID (default: `eval-<suite slug>-<8 hex>`); its cases' runs are `<eval ID>-<case id>`. */
  evalId?: string;
}

export type EvalWorkflowHandle = WorkflowHandle<typeof perflowEval>;

/** Starts the eval workflow: each case becomes a run once it has a free slot. */
export async function startEval(perflow: PerflowClient, o: StartEvalOptions): Promise<{ evalId: string; handle: EvalWorkflowHandle }> {
  const { client, config } = perflow;
  const llmTaskQueue = o.llmTaskQueue ?? config.llmTaskQueue;
  const untenanted = o.suite.cases.find((c) => c.parameters.tenant_id === undefined);
  if (config.workerPolicy?.policy.requireTenant && untenanted) throw new PerflowError('refused', `case ${untenanted.case.id}: ${TENANT_REQUIRED}`);
  const { suite, agent } = o.suite;
  const evalId = o.evalId ?? `eval-${slug(suite.name)}-${randomBytes(4).toString('hex')}`;
  const tenant = o.suite.cases.find((c) => c.parameters.tenant_id !== undefined)?.parameters.tenant_id;
  const input: EvalInput = {
    eval_id: evalId,
    suite: suite.name,
    agent,
    workflow_type: agentTypeSpec(agent.type).workflowType,
    concurrency: o.concurrency ?? 4,
    cases: o.suite.cases.map(({ case: c, parameters: resolved }) => {
      const { ids, continuesConversation, parameters } = resolveRunIds({ parameters: resolved });
      return {
        id: c.id,
        question: c.question,
        checks: c.checks,
        ...(c.reference !== undefined ? { reference: c.reference } : {}),
        sparse: sparseParameters(parameters),
        ids,
        ...(continuesConversation ? { continues_conversation: true } : {}),
      };
    }),
    ...(llmTaskQueue ? { llm_task_queue: llmTaskQueue } : {}),
    ...(tenant !== undefined ? { tenant_id: tenant } : {}),
    perflow_version: packageVersion(),
    ...(await registeredSearchAttributes(client)),
  };
  const handle = await client.workflow.start<typeof perflowEval>(EVAL_WORKFLOW_TYPE, {
    taskQueue: o.taskQueue ?? config.taskQueue,
    workflowId: evalId,
    args: [input],
    memo: { suite: suite.name, agent: agent.name, cases: suite.cases.length, ...(tenant !== undefined ? { tenant_id: tenant } : {}) },
    staticSummary: `eval ${suite.name}: ${suite.cases.length} cases of ${agent.name}`,
  });
  return { evalId, handle };
}

/** The custom search attributes the namespace has, when the server says (else the eval sets all of perflow's). */
async function registeredSearchAttributes(client: Client): Promise<{ search_attributes?: string[] }> {
  try {
    const registered = await client.connection.operatorService.listSearchAttributes({ namespace: client.options.namespace });
    return { search_attributes: Object.keys(registered.customAttributes ?? {}) };
  } catch {
    return {};
  }
}

/** How far a running eval is. */
export function evalProgress(client: Client, evalId: string): Promise<EvalProgress> {
  return client.workflow.getHandle(evalId).query(evalProgressQuery);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An eval's result: with `wait`, once it ends (`onProgress` gets its progress meanwhile);
 * without, undefined while it runs. An eval Temporal no longer knows, or one that ended without a
 * result (cancelled), is read from MongoDB.
 */
export async function evalResult(
  perflow: PerflowClient,
  evalId: string,
  o: { wait?: boolean; onProgress?: (p: EvalProgress) => void; intervalMs?: number } = {},
): Promise<EvalResult | undefined> {
  const handle: EvalWorkflowHandle = perflow.client.workflow.getHandle(evalId);
  try {
    const running = (await handle.describe()).status.name === 'RUNNING';
    if (running && !o.wait) return undefined;
    if (running && o.onProgress) {
      let settled = false;
      const result = handle.result().finally(() => (settled = true));
      result.catch(() => undefined);
      while (!settled) {
        const p = await handle.query(evalProgressQuery).catch(() => undefined);
        if (p && !settled) o.onProgress(p);
        await Promise.race([sleep(o.intervalMs ?? 500), result.catch(() => undefined)]);
      }
      return await result;
    }
    return await handle.result();
  } catch (err) {
    // Temporal no longer knows the eval, or it ended without a result (cancelled): MongoDB keeps its document.
    const ended = err instanceof WorkflowFailedError;
    if (!(isNotFound(err) || ended)) throw err;
    const stored = await withMemory(perflow, (memory) => loadEval(memory, evalId));
    if (stored && (!ended || stored.status !== 'running')) return stored;
    if (ended) throw err;
    throw noEval(evalId);
  }
}

const noEval = (evalId: string) => new PerflowError('not_found', `no eval "${evalId}" in Temporal or MongoDB: check the eval ID (perflow eval list)`);

/** An eval as it stands: while it runs, with its progress; one that was cancelled (or failed) has that status. */
export type EvalSnapshot = Omit<EvalResult, 'status'> & { status: EvalResult['status'] | 'terminated' | 'timed_out' | 'failed'; progress?: EvalProgress };

/**
 * An eval as it stands, or undefined when neither Temporal nor MongoDB knows it: an ended
 * eval's result; a running one's document with the cases scored so far and its progress; one that ended
 * without a result (cancelled, say) its saved document with how it ended.
 */
export async function evalSnapshot(perflow: PerflowClient, evalId: string): Promise<EvalSnapshot | undefined> {
  const { client } = perflow;
  const stored = () => withMemory(perflow, (memory) => loadEval(memory, evalId));
  try {
    const { status, memo, startTime } = await client.workflow.getHandle(evalId).describe();
    if (status.name === 'COMPLETED') return await evalResult(perflow, evalId);
    const running = status.name === 'RUNNING';
    const [saved, scored] = await Promise.all([stored(), running ? scoredSoFar(client, evalId) : undefined]);
    // Saved whole as its last act: the workflow has not closed yet, the eval has ended.
    if (saved?.status === 'completed') return saved;
    // The eval saves its document first thing: until then, what its memo says.
    const start: EvalResult = { eval_id: evalId, suite: String(memo?.suite ?? ''), agent: String(memo?.agent ?? ''), status: 'running', started_at: startTime.toISOString(), passed: 0, failed: 0, pass_rate: 0, cases: [] };
    if (scored) return { ...(saved ?? start), ...(scored.cases ? { cases: scored.cases, ...tallyEval(scored.cases) } : {}), progress: scored.progress };
    return { ...(saved ?? start), status: END_STATUS[status.name] ?? 'failed' };
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return stored();
  }
}

/** A running eval's progress and the cases it has scored, in one query (an eval begun by a worker without it: its progress alone). */
async function scoredSoFar(client: Client, evalId: string): Promise<{ progress: EvalProgress; cases?: EvalResult['cases'] }> {
  const handle = client.workflow.getHandle(evalId);
  return handle.query(evalScoredQuery).catch(async () => ({ progress: await handle.query(evalProgressQuery) }));
}

/** The latest evals in MongoDB (MONGODB_URI), newest first, without their cases; with `tenant`, that tenant's only. */
export function listEvals(stores: StoresClient, limit = 50, tenant?: string): Promise<Omit<EvalResult, 'cases'>[]> {
  return withMemory(stores, (memory) => listStoredEvals(memory, limit, tenant));
}

/** An eval comparison with the run diff of each case that improved or regressed. */
export type EvalComparisonWithDiffs = Omit<EvalComparison, 'cases'> & { cases: (CaseComparison & { diff?: RunDiff })[] };

/** The eval's result once it has ended (also one MongoDB says ended while its workflow closes), else undefined. */
async function endedEval(perflow: PerflowClient, evalId: string): Promise<EvalResult | undefined> {
  const r = await evalSnapshot(perflow, evalId);
  if (!r) throw noEval(evalId);
  if (r.status === 'running') return undefined;
  if (r.status !== 'completed') throw new PerflowError('invalid', `eval ${evalId} was ${r.status.replace('_', ' ')}: it has no result to compare`);
  return r as EvalResult;
}

/** Compares two ended evals case by case (see `compareEvals`), with the run diff of every changed case. */
export async function compareEvalResults(perflow: PerflowClient, a: string, b: string): Promise<EvalComparisonWithDiffs> {
  const [ra, rb] = await Promise.all([a, b].map((id) => endedEval(perflow, id)));
  const still = !ra ? a : !rb ? b : undefined;
  if (!ra || !rb) throw new PerflowError('invalid', `eval ${still} is still running: compare it once it ends (perflow eval show ${still})`);
  const cmp = compareEvals(ra, rb);
  const cases = await Promise.all(
    cmp.cases.map(async (c) => (c.a && c.b && (c.change === 'improved' || c.change === 'regressed') ? { ...c, diff: await diffRuns(perflow.client, c.a.workflow_id, c.b.workflow_id) } : c)),
  );
  return { ...cmp, cases };
}
