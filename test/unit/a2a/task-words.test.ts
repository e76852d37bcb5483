/** A client's answer to a task waiting for input, read from its message; what the task asks; how its run's end reads. */
import { Role, type Message, type Part } from '@a2a-js/sdk';
import { answerOf } from '../../../a2a/answers';
import { askFor, endedStatus } from '../../../a2a/run-tasks';
import { TaskState } from '@a2a-js/sdk';
import { PerflowError } from '../../../client/errors';


const msg = (...parts: Part[]): Message => ({ messageId: 'm', contextId: 'c', taskId: 't', role: Role.ROLE_USER, parts, metadata: {}, extensions: [], referenceTaskIds: [] });
const text = (t: string): Part => ({ content: { $case: 'text', value: t }, mediaType: 'text/plain', filename: '', metadata: {} });
const data = (v: unknown): Part => ({ content: { $case: 'data', value: v }, mediaType: 'application/json', filename: '', metadata: {} });

describe('answerOf', () => {
  it('reads "approve" and "reject <reason>" from text, in any case', () => {
    expect(answerOf(msg(text('Approve')))).toEqual({ decision: 'approve' });
    expect(answerOf(msg(text('reject: too many steps')))).toEqual({ decision: 'reject', reason: 'too many steps' });
    expect(answerOf(msg(text('deny')))).toEqual({ decision: 'reject' });
  });

  it('reads a data part {"decision": …} with its options', () => {
    expect(answerOf(msg(data({ decision: 'approve', steps: ['only this'] })))).toEqual({ decision: 'approve', steps: ['only this'] });
    expect(answerOf(msg(data({ decision: 'raise', usd: 2.5 })))).toEqual({ decision: 'raise', usd: 2.5 });
  });

  it('refuses anything else in one line naming what to send', () => {
    expect(() => answerOf(msg(text('maybe later')))).toThrow(/answer with the text "approve" or "reject \[reason\]"/);
    expect(() => answerOf(msg(data({ decision: 'approve', agent: { llm: {} } })))).toThrow(PerflowError);
    expect(() => answerOf(msg(data({ decision: 'raise', usd: -1 })))).toThrow(/usd/);
  });
});

describe('askFor', () => {
  it('says what a plan approval asks and names the choices in a data part, without the CLI commands', () => {
    const [said, choices] = askFor({ id: 'plan-1', kind: 'plan', since: '2026-01-01T00:00:00Z', plan: ['look', 'count'], answer: ['perflow approve X'] });
    expect(said.content).toEqual({ $case: 'text', value: expect.stringContaining('1. look | 2. count') });
    expect(choices.content?.$case === 'data' && choices.content.value).toEqual({ pending: { id: 'plan-1', kind: 'plan', since: '2026-01-01T00:00:00Z', plan: ['look', 'count'] }, choices: ['approve', 'reject'] });
  });

  it('asks a raise or a reject at a budget', () => {
    const [, choices] = askFor({ id: 'budget-1', kind: 'budget', since: 's', budget: { max_cost_usd: 1, cost_usd: 1.2 }, answer: [] });
    expect(choices.content?.$case === 'data' && choices.content.value.choices).toEqual(['raise', 'reject']);
  });
});

describe('endedStatus', () => {
  const ids = { workflow_id: 'w', memory_id: 'm' };
  it('gives a completed run COMPLETED with the answer as an artifact of a stable ID, the IDs, steps and cost as its data', () => {
    const { status, artifact } = endedStatus('w', 'm', { ...ids, status: 'completed', response: '42', steps_executed: 2, cost_usd: 0.01, output: { n: 42 } });
    expect(status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifact?.artifactId).toBe('w/answer');
    expect(artifact?.parts.map((p) => p.content)).toEqual([
      { $case: 'text', value: '42' },
      { $case: 'data', value: { ...ids, status: 'completed', steps_executed: 2, cost_usd: 0.01, output: { n: 42 } } },
    ]);
  });

  it('gives a failed or tripped run FAILED with its reason in one line, a cancelled one CANCELED', () => {
    const failed = endedStatus('w', 'm', { ...ids, status: 'failed', response: '', error: 'model down\nat line 3' });
    expect(failed.status.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(failed.status.message?.parts[0].content).toEqual({ $case: 'text', value: 'The run failed: model down at line 3' });
    expect(endedStatus('w', 'm', { ...ids, status: 'tripped', response: 'stopped by the pii check' }).status.message?.parts[0].content).toEqual({ $case: 'text', value: 'stopped by the pii check' });
    expect(endedStatus('w', 'm', { ...ids, status: 'cancelled', response: '' }).status.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
