/** Types, queries and failure names shared by workflows and clients. */
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
}

export const progressQuery = defineQuery<Progress>('progress');

/** Failure types a client can match on. */
export const FailureTypes = {
  PlannerOutputInvalid: 'Planner.OutputInvalid',
} as const;

export function preview(text: string, max = RESULT_PREVIEW_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}
