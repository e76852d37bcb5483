/**
 * The typed-output activity: the run's answer asked of the planning model as the JSON value its
 * `output_schema` describes (the provider's structured-output feature where it has one, the
 * schema in the prompt always), the reply validated here. A reply that does not conform is an
 * answer, not a failure: the workflow asks again with what was wrong, each attempt recorded.
 */
import type { TenantChecked, TypedOutputAnswer, TypedOutputInput } from '../core/activity-contract';
import { outputProblems, replyJson } from '../core/output-schema';
import { TYPED_OUTPUT_SYSTEM_PROMPT, typedOutputPrompt } from '../core/typed-output';
import { tenantCostOf, tenantPriceProblem } from '../telemetry/model-prices';
import { chat } from './llm/chat';
import type { ModelCallDeps } from './model-calls';
import { checkModel } from './policy';
import { withHeartbeat } from './heartbeat';
import { NOT_MADE, withinTenantBudget } from './tenant-budgets';

export async function typedOutput(deps: ModelCallDeps, input: TypedOutputInput): Promise<TenantChecked<TypedOutputAnswer>> {
  checkModel(deps, input.model);
  return withinTenantBudget(
    deps.tenantBudgets,
    input.tenant,
    () => withHeartbeat(() => typedCall(deps, input)),
    () => ({ ...NOT_MADE, reply: '' }),
    Date.now,
    (answer) => tenantCostOf(input.model, answer.usage),
    (t) => tenantPriceProblem(input.model, t),
  );
}

async function typedCall(deps: ModelCallDeps, input: TypedOutputInput): Promise<TypedOutputAnswer> {
  const request = {
    system: TYPED_OUTPUT_SYSTEM_PROMPT,
    messages: [{ role: 'user' as const, content: typedOutputPrompt(input) }],
    position: input.position,
    output: input.output,
  };
  const { content: reply, usage } = await chat(input.model, request, deps, undefined, { ...(input.agent !== undefined ? { agent: input.agent } : {}), ...(input.memory_id !== undefined ? { conversation: input.memory_id } : {}) });
  const parsed = replyJson(reply);
  if ('error' in parsed) return { reply, problems: [`/: ${parsed.error}`], path: '/', usage };
  const wrong = outputProblems(input.output.schema, parsed.value);
  return wrong ? { reply, ...wrong, usage } : { reply, output: parsed.value, usage };
}
