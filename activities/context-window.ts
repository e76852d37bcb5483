/**
 * Prompts that fit their model's context window. Before a model call the activity measures the
 * request it is about to send (4 characters a token, the common estimate); when it would not
 * leave the answer its room in the window, the oldest part of the prompt — a planner's earliest
 * completed steps and past exchanges, an executor's earlier steps and first turns — goes, as the
 * model's `context_strategy` says: `summarize` (the default: one call of the same model
 * summarizes it, recorded in memory and reused by later calls), `trim` (left out, said in one
 * line) or `fail` (a non-retryable failure naming the sizes). Each compaction is an event of the
 * run's stream. Everything happens inside the model call's activity, so its result — and the
 * history — holds what was sent; a retry reuses the summary memory holds.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ModelSettings } from '../core/activity-contract';
import { addUsage, ZERO_USAGE, type ChatMessage, type Usage } from '../core/llm-types';
import type { CompletedStep } from '../core/template';
import { stepTraceId } from '../core/memory-ids';
import { tableContextWindow } from '../telemetry/model-prices';
import { chat, type ChatDeps } from './llm/chat';
import type { ActivityStream } from './run-events';
import type { MemoryStore } from '../stores/store';

export type ContextStrategy = 'summarize' | 'trim' | 'fail';

/** Tokens of a text as providers' tokenizers average on prose: 4 characters a token. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** The model's context window: the agent file's `context_window`, else the price table's; undefined when neither knows it. */
export function contextWindowOf(model: ModelSettings): number | undefined {
  return model.context_window ?? tableContextWindow(model);
}

/** What the answer may take of the window: the call's `max_tokens`, else a quarter of the window (at most 4,096). */
export function answerRoom(model: ModelSettings, window: number): number {
  const max = Number(model.parameters?.max_tokens ?? model.parameters?.max_completion_tokens);
  return Number.isFinite(max) && max > 0 ? Math.min(max, Math.floor(window / 2)) : Math.min(4_096, Math.floor(window / 4));
}

/** The room a summary may take: an eighth of the prompt's budget, at most 1,024 tokens. */
const summaryRoom = (budget: number) => Math.max(32, Math.min(1_024, Math.floor(budget / 8)));

/** The oldest units of a prompt that may go (steps, messages), as the model reads them, oldest first. */
export interface Compactable {
  role: 'planner' | 'executor';
  step?: number;
  /** The units' texts. */
  parts: string[];
  /** How many of the last units stay whatever happens (the step's latest turn). */
  keep: number;
  /** Tokens of the whole request with the first `k` units replaced by `placeholder`. */
  sizeWith(k: number, placeholder: string): number;
  /** The unit replacing the first `k`: a summary, or (`summary` undefined) the line saying they were left out. */
  placeholder(k: number, summary?: string): string;
  /**
   * Where the summary is recorded: under the run's root interaction, with a key unique in it for
   * these `k` units, in the root's memory (`owner`; absent: the memory of the run's first step
   * trace, which a planner prompt with steps of its run has). Absent: not recorded.
   */
  record?: { root: string; key: (k: number) => string; owner?: RecordOwner };
}

/** The memory (and tenant) a compaction's record goes in. */
interface RecordOwner {
  memory_id: string;
  tenant_id?: string;
}

export interface CompactDeps extends ChatDeps {
  memory: MemoryStore;
}

export interface Compaction {
  /** How many of the oldest units go. */
  dropped: number;
  placeholder: string;
  /** The summary call's usage (none when trimmed or when memory had the summary). */
  usage: Usage;
}

/**
 * How the request fits the model's window: undefined when it fits as it is (or the window is
 * unknown), else which units go and what stands for them. Throws `Context.WindowExceeded`
 * (non-retryable) under `fail`, and whenever leaving out everything that may go is not enough.
 */
export async function compactToFit(deps: CompactDeps, model: ModelSettings, c: Compactable, stream?: ActivityStream): Promise<Compaction | undefined> {
  const window = contextWindowOf(model);
  if (window === undefined) return undefined;
  const budget = window - answerRoom(model, window);
  const before = c.sizeWith(0, '');
  if (before <= budget) return undefined;
  const strategy: ContextStrategy = model.context_strategy ?? 'summarize';
  const name = model.model ?? model.interface;
  const tooLong = (why: string) =>
    ApplicationFailure.nonRetryable(
      `model ${name}: the ${c.role} prompt (~${before} tokens) does not fit its context window of ${window} tokens (${budget} with room for the answer)${why}`,
      'Context.WindowExceeded',
    );
  if (strategy === 'fail') throw tooLong('; context_strategy is fail: use summarize or trim, a model with a larger window, or shorten what the run carries (message_history_limit)');
  const reserve = strategy === 'summarize' ? summaryRoom(budget) : 0;
  const most = c.parts.length - c.keep;
  let k = 1;
  while (k <= most && c.sizeWith(k, c.placeholder(k, strategy === 'summarize' ? '' : undefined)) + reserve > budget) k++;
  if (k > most) throw tooLong(most === 0 ? ': nothing in it may be left out (its system prompt, question and template alone are that long); use a model with a larger window or a shorter prompt' : `, even with its ${most} oldest ${c.role === 'planner' ? 'steps' : 'messages'} left out; use a model with a larger window`);
  let usage = ZERO_USAGE;
  let placeholder = c.placeholder(k);
  if (strategy === 'summarize') {
    const made = await summaryOf(deps, model, c, k, window, reserve);
    usage = made.usage;
    placeholder = c.placeholder(k, made.text);
  }
  const after = c.sizeWith(k, placeholder);
  await stream?.publish({ type: 'context_compacted', role: c.role, ...(c.step !== undefined ? { step: c.step } : {}), model: name, strategy, window, tokens_before: before, tokens_after: after, dropped: k });
  return { dropped: k, placeholder, usage };
}

const SUMMARY_SYSTEM =
  'You compact the working context of an AI agent. Summarize the content you are given so the agent can go on without it: keep every fact, number, name, decision, tool result and open question it may need; leave out repetition and pleasantries. Answer with the summary only.';

/** The summary of the first `k` units: memory's, when an earlier attempt or call made it; else one call of the model, then recorded. */
async function summaryOf(deps: CompactDeps, model: ModelSettings, c: Compactable, k: number, window: number, room: number): Promise<{ text: string; usage: Usage }> {
  const id = c.record?.key(k);
  // The run's root interaction is written when the run ends: the memory to record in is the owner given, or its first step's.
  const [known, trace] = c.record && id !== undefined ? await deps.memory.findInteractions([id, ...(c.record.owner ? [] : [stepTraceId(c.record.root, 0)])]) : [null, null];
  if (known) return { text: known.response, usage: ZERO_USAGE };
  const owner = c.record?.owner ?? (trace ? { memory_id: trace.memory_id, ...(trace.tenant_id !== undefined ? { tenant_id: trace.tenant_id } : {}) } : undefined);
  // The summary call fits the window too: each unit gets an equal share of what is left.
  const share = Math.max(200, Math.floor(((window - room - estimateTokens(SUMMARY_SYSTEM) - 64) * 4) / k));
  const content = c.parts
    .slice(0, k)
    .map((p, i) => `[${i + 1}]\n${p.length > share ? `${p.slice(0, share)}…` : p}`)
    .join('\n\n');
  const answer = await chat(
    model,
    { system: SUMMARY_SYSTEM, messages: [{ role: 'user', content: `In at most ${Math.floor(room * 0.75)} words, summarize:\n\n${content}` }], position: { role: 'compaction' } },
    deps,
    undefined,
    { conversation: owner?.memory_id },
  );
  const text = answer.content.length > room * 4 ? `${answer.content.slice(0, room * 4)}…` : answer.content;
  if (id === undefined || !owner) return { text, usage: addUsage(ZERO_USAGE, answer.usage) };
  await deps.memory.insertInteractionsOnce([
    {
      interaction_id: id,
      ...owner,
      parent_interaction_id: c.record!.root,
      input: `${k === 1 ? 'the oldest' : `the ${k} oldest`} ${c.role === 'planner' ? 'completed step' : 'message'}${k === 1 ? '' : 's'}${c.step !== undefined ? ` before step ${c.step + 1}'s latest turn` : ''}`,
      response: text,
      origin: 'compaction',
      trace_number: null,
      ...(c.step !== undefined ? { step_index: c.step } : {}),
    },
  ], new Date());
  return { text, usage: addUsage(ZERO_USAGE, answer.usage) };
}

/** A planner prompt's completed steps (past exchanges first) as what may go, oldest first. */
export function plannerCompactable(completed: readonly CompletedStep[], render: (steps: CompletedStep[], historyCount: number) => string, historyCount: number, system: string, root?: string): Compactable & { steps(k: number, placeholder: string): { steps: CompletedStep[]; historyCount: number } } {
  const steps = (k: number, placeholder: string) =>
    k === 0
      ? { steps: [...completed], historyCount }
      : {
          steps: [{ step: `The ${k === 1 ? 'earliest completed step' : `${k} earliest completed steps`} (compacted to fit the context window)`, result: placeholder }, ...completed.slice(k)],
          historyCount: k <= historyCount ? historyCount - k + 1 : 0,
        };
  return {
    role: 'planner',
    parts: completed.map((s) => `${s.step}\n${s.result}`),
    keep: 0,
    steps,
    sizeWith: (k, placeholder) => {
      const shown = steps(k, placeholder);
      return estimateTokens(system + render(shown.steps, shown.historyCount));
    },
    placeholder: (k, summary) => summary ?? `(left out: ${k} steps)`,
    ...(root !== undefined ? { record: { root, key: (k: number) => `${root}:compaction-planner-${k}` } } : {}),
  };
}

const messageTokens = (m: ChatMessage) => estimateTokens(m.content + ('tool_calls' in m && m.tool_calls ? JSON.stringify(m.tool_calls) : ''));

/**
 * An executor turn's messages as what may go: the earlier steps before the task (the first user
 * message of the step), then the step's turns after it, each an assistant message with the tool
 * results that answer it — whole, so no tool result loses its call. The latest turn stays; what
 * went is told in the task message.
 */
export function executorCompactable(
  messages: readonly ChatMessage[],
  task: number,
  fixed: string,
  o: { step?: number; root?: string; owner?: RecordOwner },
): Compactable & { messages(k: number, placeholder: string): ChatMessage[] } {
  const groups = (list: readonly ChatMessage[], starts: (m: ChatMessage) => boolean) =>
    list.reduce<ChatMessage[][]>((out, m) => (starts(m) || out.length === 0 ? [...out, [m]] : [...out.slice(0, -1), [...out.at(-1)!, m]]), []);
  // Without a task message nothing may go: a prompt call too long as it is fails.
  const before = task < 0 ? [] : groups(messages.slice(0, task), (m) => m.role === 'user');
  const after = task < 0 ? [] : groups(messages.slice(task + 1), (m) => m.role === 'assistant');
  const units = [...before, ...after];
  const taskMessage = task < 0 ? undefined : messages[task];
  const build = (k: number, placeholder: string): ChatMessage[] => {
    if (k === 0 || !taskMessage) return [...messages];
    const keptBefore = before.slice(k).flat();
    const keptAfter = after.slice(Math.max(0, k - before.length)).flat();
    const content =
      k <= before.length
        ? `Earlier steps, compacted to fit the context window: ${placeholder}\n\n${taskMessage.content}`
        : `${taskMessage.content}\n\nWhat was done so far (earlier steps and this step's first turns), compacted to fit the context window: ${placeholder}`;
    return [...keptBefore, { ...taskMessage, content } as ChatMessage, ...keptAfter];
  };
  const fixedTokens = estimateTokens(fixed);
  return {
    role: 'executor',
    ...(o.step !== undefined ? { step: o.step } : {}),
    parts: units.map((g) => g.map((m) => `${m.role}${m.role === 'tool' ? ` (${m.name})` : ''}: ${m.content}${'tool_calls' in m && m.tool_calls?.length ? ` [calls ${m.tool_calls.map((c) => `${c.name} ${JSON.stringify(c.input)}`).join(', ')}]` : ''}`).join('\n')),
    keep: after.length > 0 ? 1 : 0,
    messages: build,
    sizeWith: (k, placeholder) => fixedTokens + build(k, placeholder).reduce((n, m) => n + messageTokens(m), 0),
    placeholder: (k, summary) => summary ?? `(left out: the ${k} oldest)`,
    ...(o.root !== undefined && o.step !== undefined ? { record: { root: o.root, key: (k: number) => `${o.root}:compaction-step-${o.step! + 1}-${k}`, ...(o.owner ? { owner: o.owner } : {}) } } : {}),
  };
}
