/**
 * Evals: a suite of questions run against an agent as ordinary perflow runs, each answer scored
 * by checks, the results kept and compared. These are the shapes every part of it shares
 * (the suite file, the checks, a case's and an eval's result, a comparison).
 */
import type { ModelConfig } from '../agent-file/model';
import type { GuardrailVerdict } from '../guardrail-verdict';
import type { Usage } from '../llm-types';

/** One check of a case's run. Exactly one of the kinds per object (a suite file is validated against this). */
export type EvalCheck =
  | { contains: string }
  | { not_contains: string }
  /** A JavaScript regular expression; `flags` as RegExp's (e.g. `i`). */
  | { regex: string; flags?: string }
  /** Passes when the expression matches nowhere (a pattern that must not be there: a key, a card number). */
  | { not_regex: string; flags?: string }
  | { equals: string }
  | { json_path: string; equals: unknown }
  | { tool_called: string }
  | { tool_not_called: string }
  | { max_steps: number }
  | { max_tokens: number }
  | { max_cost_usd: number }
  | { max_duration_ms: number }
  /** Passes when the run's typed answer conforms to the agent's `output_schema` (only `true`: there is no use in expecting it not to). */
  | { output_valid: true }
  /** `true`: passes when a guardrail stopped the run; `false`: when none did. */
  | { tripped: boolean }
  /** A model grades the response against the criteria and the question (default model: the agent's `llm`). */
  | { judge: string; llm?: ModelConfig };

export interface EvalCase {
  id: string;
  question: string;
  /** Run parameters for this case, over the suite's and the command line's. */
  params?: Record<string, unknown>;
  /** The answer a recorded run gave (suites written by `eval from-runs`); judges see it. */
  reference?: string;
  checks: EvalCheck[];
}

export interface EvalSuite {
  name: string;
  /** The agent file, relative to the suite file (`--agent` overrides it). */
  agent?: string;
  /** Run parameters for every case. */
  params?: Record<string, unknown>;
  cases: EvalCase[];
}

/** What a case's finished run shows its checks. */
export interface CaseObservation {
  /** How the run ended: `completed`, `tripped` (a guardrail stopped it), or the Temporal status it ended with otherwise. */
  status: string;
  /** The run's response ('' when it did not complete). */
  response: string;
  /** The run's typed answer (the agent has an `output_schema`): `json_path` reads it instead of the response. */
  output?: unknown;
  /** The agent's `output_schema`, which `output_valid` validates `output` against. */
  output_schema?: Record<string, unknown>;
  /** The guardrail that stopped the run (status `tripped`). */
  tripped?: Pick<GuardrailVerdict, 'place' | 'check' | 'detail'>;
  /** Why the run did not complete, one line. */
  error?: string;
  /** The names of the tools the run called, in order (repeats kept). */
  tools_called: string[];
  steps: number;
  usage: Usage;
  duration_ms: number;
}

export interface CheckResult {
  /** The check as one line, e.g. `contains "Paris"`. */
  check: string;
  passed: boolean;
  /** Why it passed or failed, one line (the judge's reason for judge checks). */
  detail: string;
}

export interface CaseResult {
  id: string;
  workflow_id: string;
  status: string;
  passed: boolean;
  checks: CheckResult[];
  usage: Usage;
  cost_usd: number | null;
  duration_ms: number;
  steps: number;
  error?: string;
  /** The case run's fingerprint (core/fingerprint.ts); absent in evals recorded before. */
  fingerprint?: string;
}

export interface EvalResult {
  eval_id: string;
  /** The suite's name. */
  suite: string;
  /** The agent's name. */
  agent: string;
  /** `cancelled`: the eval was cancelled; its cases scored by then are kept. */
  status: 'running' | 'completed' | 'cancelled';
  started_at: string;
  ended_at?: string;
  passed: number;
  failed: number;
  /** passed / cases (0 for an empty suite). */
  pass_rate: number;
  cases: CaseResult[];
}

/** How a case changed from eval A to eval B. */
export type CaseChange = 'improved' | 'regressed' | 'same' | 'added' | 'removed';

export interface CaseComparison {
  id: string;
  a?: Pick<CaseResult, 'passed' | 'workflow_id' | 'usage' | 'cost_usd' | 'duration_ms' | 'steps'>;
  b?: Pick<CaseResult, 'passed' | 'workflow_id' | 'usage' | 'cost_usd' | 'duration_ms' | 'steps'>;
  change: CaseChange;
  /** B − A: tokens (input + output), dollars (null when either is unknown), milliseconds. */
  delta?: { tokens: number; cost_usd: number | null; duration_ms: number };
}

export interface EvalComparison {
  a: string;
  b: string;
  cases: CaseComparison[];
  improved: number;
  regressed: number;
  same: number;
  /** Cases only B has. */
  added?: number;
  /** Cases only A has. */
  removed?: number;
  /** The fingerprints each side's case runs ran (distinct, sorted), and whether both ran the same ones. */
  fingerprints?: { a: string[]; b: string[]; same: boolean };
}
