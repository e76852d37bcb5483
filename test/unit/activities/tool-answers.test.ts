/**
 * A step's next turn sends the earlier tool answers this worker gave without reading memory,
 * when the workflow's digest says it received that very answer; another answer (a retried call
 * elsewhere) or an unknown one is read from memory, as are runs recorded before digests.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ExecutorCallInput } from '../../../core/activity-contract';
import { textDigest } from '../../../core/text';
import type { RecordedRequest } from '../../../activities/llm/scripted';
import { executionModel, type ModelCallDeps } from '../../../activities/model-calls';
import { toolCallId } from '../../../activities/memory';
import { toolAnswerCache } from '../../../activities/worker-caches';

const ids = { memory_id: 'm', parent_interaction_id: 'root', executor_agent_memory_id: 'em', executor_agent_parent_interaction_id: 'eroot' };
const place = { ids, stepIndex: 0, callIndex: 0 };

/** A second turn of step 1 whose tool message (the first call's answer) is sent by reference. */
function secondTurn(digest?: string): ExecutorCallInput {
  return {
    model: { interface: 'scripted', script: { executor: [[{ tool_calls: [{ name: 'T', input: {} }] }, { content: 'done' }]] } },
    messages: [
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'T', input: {} }] },
      { role: 'tool', tool_call_id: 'c1', name: 'T', content: '', is_error: false },
    ],
    stored_tool_results: [{ message: 1, call: 0, ...(digest !== undefined ? { digest } : {}) }],
    step_memory: { ids, step_index: 0, step: 'add them', history_limit: 0 },
    position: { role: 'executor', step: 0, iteration: 1 },
  } as ExecutorCallInput;
}

function depsWith(answers: ReturnType<typeof toolAnswerCache>) {
  const reads: string[][] = [];
  const recorder: RecordedRequest[] = [];
  const memory = {
    findInteractions: async (wanted: readonly string[]) => (reads.push([...wanted]), wanted.map((_id) => ({ _id, response: 'the answer memory holds' }))),
    upsertInteractions: async () => undefined,
  };
  const deps = {
    memory,
    recorder,
    toolAnswers: answers,
    executorHistory: { get: async () => [{ role: 'user', content: 'add them' }] },
    completedSteps: { remember: () => undefined },
    tenantBudgets: () => undefined,
  } as unknown as ModelCallDeps;
  return { deps, reads, sent: () => recorder.at(-1)!.messages.find((m) => m.role === 'tool')!.content };
}

describe('tool answers a worker gave, for the next turn of the step', () => {
  it('sends its own copy when the digest matches, reading no memory', async () => {
    const answers = toolAnswerCache();
    answers.remember(toolCallId(place), 'the answer this worker gave');
    const { deps, reads, sent } = depsWith(answers);
    await new MockActivityEnvironment().run(executionModel, deps, secondTurn(textDigest('the answer this worker gave')));
    expect(sent()).toBe('the answer this worker gave');
    expect(reads).toEqual([]);
  });

  it('reads memory when the workflow received another answer, when it knows none, and in runs recorded before digests', async () => {
    for (const [remembered, digest] of [
      ['an answer of an attempt the workflow never saw', textDigest('the answer memory holds')],
      [undefined, textDigest('the answer memory holds')],
      ['the answer this worker gave', undefined],
    ] as const) {
      const answers = toolAnswerCache();
      if (remembered !== undefined) answers.remember(toolCallId(place), remembered);
      const { deps, reads, sent } = depsWith(answers);
      await new MockActivityEnvironment().run(executionModel, deps, secondTurn(digest));
      expect(sent()).toBe('the answer memory holds');
      expect(reads).toEqual([[toolCallId(place)]]);
    }
  });

  it('forgets its oldest answers past its bound', () => {
    const answers = toolAnswerCache(2);
    for (const id of ['a', 'b', 'c']) answers.remember(id, id);
    expect(['a', 'b', 'c'].map((id) => answers.matching(id, textDigest(id)))).toEqual([undefined, 'b', 'c']);
  });
});
