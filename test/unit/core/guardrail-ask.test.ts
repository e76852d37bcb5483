import { parseAgentDefinition } from '../../../core/agent';
import { withheldOutput } from '../../../core/guardrails';
import { pendingLines } from '../../../client/text-views';

const agent = (guardrails: unknown) => parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, guardrails });

describe('guardrails that ask a person', () => {
  it('are taken in every place', () => {
    const g = { input: [{ not_contains: 'password', on_fail: 'ask' }], tool_output: [{ not_regex: 'sk-\\w+', on_fail: 'ask' }], output: [{ judge: 'polite', on_fail: 'ask' }] };
    expect(agent(g).guardrails).toEqual(g);
  });

  it('leave retry to output guardrails, saying what an input or tool_output one can do', () => {
    expect(() => agent({ input: [{ contains: 'x', on_fail: 'retry' }] })).toThrow('an input guardrail can stop the run or ask a person');
    expect(() => agent({ tool_output: [{ contains: 'x', on_fail: 'retry' }] })).toThrow('a tool_output guardrail can stop the run or ask a person');
    expect(() => agent({ output: [{ contains: 'x', on_fail: 'later' }] })).toThrow('expected one of stop, retry, ask');
  });

  it('withhold a tool output as a stop one does, saying a person decides', () => {
    expect(withheldOutput({ check: 'not_regex /sk-/', on_fail: 'ask' })).toBe("Error: the tool's output was withheld: it failed the tool_output guardrail not_regex /sk-/, and a person decides whether the run goes on without it");
    expect(withheldOutput({ check: 'not_regex /sk-/', on_fail: 'stop' })).toBe("Error: the tool's output was withheld: it failed the tool_output guardrail not_regex /sk-/, and the run stops");
  });

  it('show as a pending decision naming the check, why, and the commands that answer it', () => {
    const lines = pendingLines({
      id: 'guardrail-1',
      kind: 'guardrail',
      since: '2026-11-28T12:00:00Z',
      guardrail: { place: 'output', check: 'not_regex /\\d/', detail: 'response matches at "4"' },
      answer: ['perflow approve W', 'perflow reject W --reason TEXT'],
    });
    expect(lines).toEqual(['awaiting a decision on the output guardrail not_regex /\\d/ (guardrail-1): response matches at "4"', '  answer: perflow approve W', '  answer: perflow reject W --reason TEXT']);
  });
});
