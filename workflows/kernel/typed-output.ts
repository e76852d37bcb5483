/**
 * A run's answer as the typed value its agent's `output_schema` describes: asked of the planning
 * model by an activity that validates the reply, and asked again with what did not conform, up
 * to `output_retries` more times; each attempt a recorded activity, so a reply that does not
 * conform never fails a workflow task and a restart repeats no call.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { addUsage } from '../../core/llm-types';
import { DEFAULT_OUTPUT_RETRIES, outputName } from '../../core/typed-output';
import { FailureTypes, type RunOutput } from './definitions';
import type { RunContext } from './context';
import { finish } from './lifecycle';
import { guardedAnswer } from './guardrails';
import { modelForCall } from './scripted-calls';
import { tenantOf, withinBudget, withinTenantBudget } from './dollar-budget';

/** The answer as its JSON text and value; the answer as it is when the agent has no `output_schema`. */
export async function typedAnswer(run: RunContext, response: string): Promise<{ response: string; output?: unknown }> {
  const { agent, progress } = run;
  const schema = agent.output_schema;
  if (!schema) return { response };
  const output = { name: outputName(schema, agent.name), schema };
  const retries = agent.output_retries ?? DEFAULT_OUTPUT_RETRIES;
  let previous: { reply: string; problems: string[]; path: string } | undefined;
  for (let attempt = 0; attempt <= retries; attempt++) {
    await withinBudget(run);
    const position = { role: 'task' as const, kind: 'output' as const, call: attempt };
    const answer = await withinTenantBudget(run, () =>
      run.models.output().executeWithOptions({ summary: attempt === 0 ? 'typed output' : `typed output, attempt ${attempt + 1}` }, [
        {
          model: modelForCall(agent.llm, position),
          position,
          question: run.question,
          answer: response,
          output,
          ...(previous ? { previous: { reply: previous.reply, problems: previous.problems } } : {}),
          agent: agent.name,
          memory_id: run.ids.memory_id,
          ...tenantOf(run),
        },
      ]),
    );
    progress.usage = addUsage(progress.usage, answer.usage);
    if (!answer.problems) return { response: JSON.stringify(answer.output), output: answer.output };
    // What the next attempt is told: the first problems (a reply can fail at every element of a long array).
    previous = { reply: answer.reply, problems: answer.problems.slice(0, 20), path: answer.path ?? '/' };
  }
  const last = previous!;
  throw ApplicationFailure.nonRetryable(`the answer does not conform to output_schema at ${last.path} after ${retries + 1} attempt(s): ${last.problems[0] ?? 'no reason given'}`, FailureTypes.TypedOutputInvalid);
}

/** Ends the run with its answer, passed by the output guardrails (guardrails.ts) and typed when the agent has an `output_schema` (see {@link typedAnswer}). */
export async function finishAnswer(run: RunContext, response: string, metadata?: Record<string, unknown>): Promise<RunOutput> {
  const typed = await typedAnswer(run, await guardedAnswer(run, response));
  return finish(run, typed.response, metadata, typed.output === undefined ? {} : { output: typed.output });
}
