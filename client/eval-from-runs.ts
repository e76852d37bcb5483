/**
 * A suite of recorded runs (`perflow eval from-runs`): each completed run's whole question, its
 * answer as the reference, and a judge check that a new answer agrees with it, so answers
 * people accepted yesterday become today's regression cases.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { MAX_CASE_ID_LENGTH, MAX_SUITE_CASES } from '../core/eval/suite';
import type { EvalCase, EvalSuite } from '../core/eval/types';
import { firstLine } from '../core/text';
import { SearchAttributes, type RunOutput } from '../workflows/definitions';
import { runInputOf } from './fork';
import { listQuery, needingSearchAttributes } from './ops';
import { lenientClient } from './payloads';

/** The criteria of the judge check each case gets. */
export const AGREES_WITH_REFERENCE = 'agrees with the reference answer';

/** Runs taken when no limit is given. */
export const DEFAULT_FROM_RUNS_LIMIT = 20;

export interface FromRunsOptions {
  /** Only runs of this agent (its name: the PerflowAgent search attribute). */
  agent?: string;
  /** Only runs of this tenant (PerflowTenant). */
  tenant?: string;
  /** Only runs started at or after this time. */
  since?: Date;
  /** At most this many runs, newest first (default 20, at most 1000, a suite's most cases). */
  limit?: number;
  /** Told about each run left out (one line), e.g. one this client has no key to decrypt. */
  skipped?: (workflowId: string, reason: string) => void;
  /** The suite's date (default: now). */
  now?: Date;
}

/** The visibility query of completed perflow runs matching the options. */
export function fromRunsQuery(o: Pick<FromRunsOptions, 'agent' | 'tenant' | 'since'>): string {
  const query = listQuery('completed', o.agent, o.tenant);
  return o.since ? `${query} AND StartTime >= '${o.since.toISOString()}'` : query;
}

/** A case id from a workflow ID: characters a case id cannot hold become `-`, unique within `taken`. */
export function caseIdFor(workflowId: string, taken: Set<string>): string {
  const base = workflowId.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, MAX_CASE_ID_LENGTH - 4) || 'run';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** The newest completed runs matching the options (visibility lists them newest first), evals' case runs and sub-agents' runs left out. */
async function completedRuns(client: Client, o: FromRunsOptions, limit: number): Promise<WorkflowExecutionInfo[]> {
  return needingSearchAttributes(client, 'eval from-runs', async () => {
    const runs: WorkflowExecutionInfo[] = [];
    // Lenient: a memo this client cannot decrypt must not end the listing (the run is skipped later, by name).
    for await (const wf of lenientClient(client).workflow.list({ query: fromRunsQuery(o) })) {
      // The runs of evals (PerflowEval) answered suites already: a suite of them would test itself.
      if (wf.typedSearchAttributes.get(SearchAttributes.eval) !== undefined) continue;
      // A sub-agent's run answered its caller's question, not a person's: its root is the run to learn from.
      if (wf.memo?.root_workflow_id !== undefined) continue;
      runs.push(wf);
      if (runs.length >= limit) break;
    }
    return runs.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  });
}

/**
 * A suite of the newest completed runs matching `o`: per run its whole question (the start
 * event's input, through the client's data converter, so encrypted runs read with the keys
 * configured), its response as `reference`, and `[{judge: "agrees with the reference answer"}]`.
 * `agent` is left unset: the suite runs against the agent file given with `--agent`.
 */
export async function suiteFromRuns(client: Client, o: FromRunsOptions = {}): Promise<EvalSuite> {
  const limit = o.limit ?? DEFAULT_FROM_RUNS_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SUITE_CASES) throw new RangeError(`limit must be an integer from 1 to ${MAX_SUITE_CASES}, got ${limit}`);
  const taken = new Set<string>();
  const cases: EvalCase[] = [];
  for (const wf of await completedRuns(client, o, limit)) {
    try {
      const { question } = await runInputOf(client, wf.workflowId);
      const output = (await client.workflow.getHandle(wf.workflowId).result()) as RunOutput;
      cases.push({ id: caseIdFor(wf.workflowId, taken), question, reference: output.response, checks: [{ judge: AGREES_WITH_REFERENCE }] });
    } catch (err) {
      if (!o.skipped) throw err;
      o.skipped(wf.workflowId, firstLine(err));
    }
  }
  const date = (o.now ?? new Date()).toISOString().slice(0, 10);
  return { name: `from-runs ${date}`, cases };
}
