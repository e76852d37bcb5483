/**
 * Provider state carried between the turns of an executor step: what an adapter returns as
 * `carry` (Anthropic's signed thinking blocks, the Responses API's encrypted reasoning, Gemini's
 * thought signatures) must go back unchanged on the step's next turn, yet has no place in the
 * workflow's history (it is large, and it is the model's private reasoning). The execution
 * activity keeps it in memory under the turn it belongs to, the workflow's assistant message says
 * only `carried`, and the next turn's activity puts the state back on it (`carry`) for the adapter.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { ExecutorStepMemory } from '../core/activity-contract';
import { executorStepId } from '../core/memory-ids';
import type { ChatMessage, ToolCall } from '../core/llm-types';
import type { MemoryStore } from '../stores/store';

/** The worker's carried turns: the ones it saved, and memory for those another worker saved. */
export interface CarriedTurns {
  get(id: string): Promise<unknown>;
  remember(id: string, carry: unknown): void;
}

export interface CarryDeps {
  memory: MemoryStore;
  carriedTurns: CarriedTurns;
}

/**
 * Where a turn's carry is kept: the step's record and the turn's tool calls, as the workflow
 * sends them back on the assistant message (a retried turn that asked other calls keeps its own).
 */
export function carriedTurnId(step: ExecutorStepMemory, toolCalls: readonly ToolCall[]): string {
  const calls = createHash('sha256').update(JSON.stringify(toolCalls.map((c) => [c.id, c.name, c.input]))).digest('base64url').slice(0, 22);
  return `${executorStepId(step.ids, step.step_index)}:turn-${calls}`;
}

/** The step's turns that carried provider state (`carried`), with that state read back from memory. */
export async function withCarriedTurns(deps: CarryDeps, messages: ChatMessage[], step: ExecutorStepMemory | undefined): Promise<ChatMessage[]> {
  if (!messages.some((m) => m.role === 'assistant' && m.carried)) return messages;
  if (!step) throw ApplicationFailure.nonRetryable('a carried turn needs step_memory: the step whose turn carried it', 'Contract.Broken');
  return Promise.all(
    messages.map(async (m) => {
      if (m.role !== 'assistant' || !m.carried || !m.tool_calls?.length) return m;
      const id = carriedTurnId(step, m.tool_calls);
      const carry = await deps.carriedTurns.get(id);
      // Saved before the turn answered: missing, the memory is not (yet) readable here; the attempt is retried.
      if (carry === undefined) throw new Error(`the provider state of turn ${id} is not in memory yet`);
      return { ...m, carry };
    }),
  );
}

/**
 * Keeps a turn's carry for the step's next turn (idempotent: a retried attempt finds it there).
 *
 * @returns true when it was kept (the assistant message then says `carried`)
 */
export async function keepCarriedTurn(deps: CarryDeps, step: ExecutorStepMemory | undefined, toolCalls: readonly ToolCall[], carry: unknown): Promise<true | undefined> {
  // A final answer has no next turn; a call outside a step (a prompt's) has no memory to keep it in.
  if (!step || carry === undefined || toolCalls.length === 0) return undefined;
  const id = carriedTurnId(step, toolCalls);
  await deps.memory.saveCarriedTurn(id, carry, new Date(), step.ids.tenant_id);
  deps.carriedTurns.remember(id, carry);
  return true;
}
