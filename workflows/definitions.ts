/** Types, queries and failure names shared by workflows and clients. */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';
import type { Usage } from '../core/llm-types';

/** The seed's output fields, plus token usage. */
export interface RunIds {
  memory_id: string;
  parent_interaction_id: string;
  executor_agent_memory_id: string;
  executor_agent_parent_interaction_id: string;
}

export interface RunOutput extends RunIds {
  response: string;
  usage: Usage;
  steps_executed: number;
}

/** Longest step result kept in workflow state and shown by queries. */
export const RESULT_PREVIEW_CHARS = 2_000;

export interface CompletedStepView {
  index: number;
  step: string;
  result_preview: string;
  /** Length of the whole result, which is stored in memory. */
  result_chars: number;
  ok: boolean;
  executor_workflow_id: string;
}

export interface Progress extends RunIds {
  status: 'planning' | 'executing' | 'completed' | 'failed';
  agent: string;
  question: string;
  plan: string[];
  current_step?: { index: number; step: string; executor_workflow_id: string };
  completed_steps: CompletedStepView[];
  steps_executed: number;
  max_steps: number;
  usage: Usage;
  result?: string;
  error?: string;
  /** How many times the run has continued-as-new (absent before the first time). */
  continued_as_new?: number;
}

export const progressQuery = defineQuery<Progress>('progress');

/**
 * Search attributes that make runs findable in the Temporal UI and `perflow list`, where the
 * server has them registered (the dev server perflow starts does; see servers/temporal.ts).
 */
export const SearchAttributes = {
  agent: defineSearchAttributeKey('PerflowAgent', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('PerflowStatus', SearchAttributeType.KEYWORD),
} as const;

/** Failure types a client can match on. */
export const FailureTypes = {
  PlannerOutputInvalid: 'Planner.OutputInvalid',
} as const;

export function preview(text: string, max = RESULT_PREVIEW_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** The progress as Markdown, for the workflow's current details in the Temporal UI. */
export function progressMarkdown(p: Progress): string {
  const lines = [`**${p.agent}** — ${p.status}`, '', `**Question:** ${preview(p.question, 300)}`, ''];
  lines.push(`memory_id \`${p.memory_id}\` · executor memory \`${p.executor_agent_memory_id}\``, '');
  if (p.plan.length > 0) lines.push('**Plan:**', ...p.plan.map((s, i) => `${i + 1}. ${preview(s, 200)}`), '');
  if (p.current_step) lines.push(`**Running step ${p.current_step.index + 1}:** ${preview(p.current_step.step, 200)}`, '');
  for (const s of p.completed_steps) lines.push(`- ${s.ok ? '✅' : '❌'} step ${s.index + 1}: ${preview(s.step, 120)} → ${preview(s.result_preview, 200)}`);
  lines.push('', `steps ${p.steps_executed}/${p.max_steps} · tokens in ${p.usage.input_tokens} / out ${p.usage.output_tokens}`);
  if (p.result !== undefined) lines.push('', `**Result:** ${preview(p.result, 2_000)}`);
  return lines.join('\n').slice(0, 18_000);
}
