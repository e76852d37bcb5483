import { answerRoom, contextWindowOf, executorCompactable, plannerCompactable } from '../../../activities/context-window';
import type { ChatMessage } from '../../../core/llm-types';

const call = (id: string) => ({ id, name: 'CalculatorTool', input: { expression: id } });

describe('a prompt fitted to the context window', () => {
  it('knows a model’s window from the agent file, else from the price table, else not at all', () => {
    expect(contextWindowOf({ interface: 'openai/v1/chat/completions', model: 'gpt-4o' })).toBe(128_000);
    expect(contextWindowOf({ interface: 'openai/v1/chat/completions', model: 'gpt-4o', context_window: 8_000 })).toBe(8_000);
    expect(contextWindowOf({ interface: 'scripted' })).toBeUndefined();
    expect(answerRoom({ interface: 'scripted' }, 2_000)).toBe(500);
    expect(answerRoom({ interface: 'scripted', parameters: { max_tokens: 300 } }, 2_000)).toBe(300);
  });

  it('leaves out an executor’s oldest steps, then whole turns of its step — never a tool result without its call — and keeps the latest turn', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'earlier step' },
      { role: 'assistant', content: 'earlier result' },
      { role: 'user', content: 'the task' },
      { role: 'assistant', content: 'first', tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', name: 'CalculatorTool', content: '1' },
      { role: 'assistant', content: 'second', tool_calls: [call('b'), call('c')] },
      { role: 'tool', tool_call_id: 'b', name: 'CalculatorTool', content: '2' },
      { role: 'tool', tool_call_id: 'c', name: 'CalculatorTool', content: '3' },
      { role: 'assistant', content: 'third', tool_calls: [call('d')] },
      { role: 'tool', tool_call_id: 'd', name: 'CalculatorTool', content: '4' },
    ];
    const fit = executorCompactable(messages, 2, 'system', { step: 0, root: 'root-1' });
    expect(fit.parts).toHaveLength(4); // one earlier step, three turns
    expect(fit.keep).toBe(1);
    expect(fit.messages(0, '')).toEqual(messages);
    const one = fit.messages(1, 'S');
    expect(one[0]).toEqual({ role: 'user', content: 'Earlier steps, compacted to fit the context window: S\n\nthe task' });
    expect(one.slice(1)).toEqual(messages.slice(3));
    const three = fit.messages(3, 'S');
    expect(three[0].content).toBe("the task\n\nWhat was done so far (earlier steps and this step's first turns), compacted to fit the context window: S");
    expect(three.slice(1)).toEqual(messages.slice(8));
    expect(fit.sizeWith(3, 'S')).toBeLessThan(fit.sizeWith(0, ''));
    expect(fit.record?.key(3)).toBe('root-1:compaction-step-1-3');
  });

  it('stands one step for a planner’s oldest completed steps, counted as history when it replaces past exchanges', () => {
    const completed = [1, 2, 3, 4].map((n) => ({ step: `s${n}`, result: `r${n}` }));
    const fit = plannerCompactable(completed, (steps) => steps.map((s) => `${s.step}=${s.result}`).join(';'), 2, 'sys', 'root-2');
    expect(fit.steps(0, '')).toEqual({ steps: completed, historyCount: 2 });
    expect(fit.steps(1, 'S')).toEqual({ steps: [{ step: 'The earliest completed step (compacted to fit the context window)', result: 'S' }, ...completed.slice(1)], historyCount: 2 });
    expect(fit.steps(3, 'S').historyCount).toBe(0);
    expect(fit.placeholder(2)).toBe('(left out: 2 steps)');
    expect(fit.record?.key(2)).toBe('root-2:compaction-planner-2');
  });
});
