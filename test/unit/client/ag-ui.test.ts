/**
 * The AG-UI translator on its own: every sequence it writes passes @ag-ui/client's verifier
 * (each START with its END, nothing after the run's end), for a retried model call, two calls
 * writing at once, a failed run, a sub-agent that fails, and a stream cut before the run ended.
 */
import { dirname } from 'node:path';
import { verifyEvents } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { AgUiTranslator } from '../../../client/ag-ui';
import type { RunEvent, RunEventBody } from '../../../core/run-events';

const ROOT = 'r-1';
let offset = 0;
const ev = (body: RunEventBody, more: Partial<RunEvent> = {}): RunEvent => ({ offset: offset++, at: '2026-11-26T00:00:00Z', ...body, ...more }) as RunEvent;

function translate(events: RunEvent[], cut?: string): Array<BaseEvent & Record<string, unknown>> {
  const t = new AgUiTranslator({ threadId: 'thread', runId: 'run', workflowId: ROOT });
  return [...t.started(), ...events.flatMap((e) => t.translate(e)), ...(cut !== undefined ? t.abandoned(cut) : [])];
}

// The verifier's Observables are those of the rxjs @ag-ui/client loads (its own copy), so untyped here.
interface Stream {
  pipe(op: unknown): Stream;
}
interface Rx {
  from(events: BaseEvent[]): Stream;
  toArray(): unknown;
  lastValueFrom(s: Stream): Promise<BaseEvent[]>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const rx = require(require.resolve('rxjs', { paths: [dirname(require.resolve('@ag-ui/client'))] })) as Rx;

/** The events as @ag-ui/client checks them; rejects with its error when a sequence breaks a rule. */
const verified = (events: BaseEvent[]) => rx.lastValueFrom((verifyEvents(false)(rx.from(events) as never) as unknown as Stream).pipe(rx.toArray()));

const started = ev({ type: 'run_started', workflow_id: ROOT, agent: 'a', agent_type: 'plan_execute_and_reflect', question: 'q', memory_id: 'm' });

describe('AG-UI events of a run', () => {
  it('(the verifier has teeth: a run finished with a message open is rejected)', async () => {
    const open = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }] as BaseEvent[];
    await expect(verified(open)).rejects.toThrow(/text messages are still active/);
  });

  it('a retried model call: the first attempt\'s message ends, the next attempt writes a new one', async () => {
    const out = translate([
      started,
      ev({ type: 'model_delta', role: 'planner', call: 'p1', text: 'half' }),
      ev({ type: 'retry', call: 'p1', attempt: 2, role: 'planner' }),
      ev({ type: 'model_delta', role: 'planner', call: 'p1', text: 'whole' }),
      ev({ type: 'run_finished', status: 'completed', response: 'done' }),
    ]);
    await expect(verified(out)).resolves.toHaveLength(out.length);
    const texts = out.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => [e.messageId, e.delta]);
    expect(texts).toEqual([[`${ROOT}#p1`, 'half'], [`${ROOT}#p1~2`, 'whole'], [`${ROOT}#response`, 'done']]);
    expect(out.find((e) => e.type === 'CUSTOM')).toMatchObject({ name: 'perflow.retry', value: { call: `${ROOT}#p1`, attempt: 2 } });
    expect(out.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { response: 'done', workflow_id: ROOT, memory_id: 'm' } });
  });

  it("a typed answer's value is RUN_FINISHED's result.output", async () => {
    const out = await verified(translate([started, ev({ type: 'run_finished', status: 'completed', response: '{"total": 3}', output: { total: 3 } })]));
    expect(out.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { response: '{"total": 3}', output: { total: 3 }, workflow_id: ROOT } });
  });

  it('two calls writing at once (parallel steps) are two messages; steps and tools pair up', async () => {
    const out = translate([
      started,
      ev({ type: 'step_started', index: 0, step: 'one' }),
      ev({ type: 'step_started', index: 1, step: 'two' }),
      ev({ type: 'model_delta', role: 'executor', step: 0, call: 'e0', text: 'a' }),
      ev({ type: 'model_delta', role: 'executor', step: 1, call: 'e1', text: 'b' }),
      ev({ type: 'model_delta', role: 'executor', step: 0, call: 'e0', text: 'c' }),
      ev({ type: 'tool_call', step: 0, tool: 'CalculatorTool', call: 'tool:0:0', input: '{"expression":"1+1"}' }),
      ev({ type: 'model_delta', role: 'executor', step: 1, call: 'e1', text: 'd' }),
      ev({ type: 'tool_result', step: 0, tool: 'CalculatorTool', call: 'tool:0:0', ok: true, output: '2' }),
      ev({ type: 'step_finished', index: 1, ok: true, result: 'b' }),
      ev({ type: 'step_finished', index: 0, ok: true, result: '2' }),
      ev({ type: 'run_finished', status: 'completed', response: '2' }),
    ]);
    await expect(verified(out)).resolves.toHaveLength(out.length);
    const text = (id: string) => out.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT' && e.messageId === id).map((e) => e.delta).join('');
    expect([text(`${ROOT}#e0`), text(`${ROOT}#e1`), text(`${ROOT}#e1.1`)]).toEqual(['ac', 'b', 'd']);
    expect(out.filter((e) => e.type.startsWith('STEP_')).map((e) => `${e.type} ${e.stepName}`)).toEqual(['STEP_STARTED step 1: one', 'STEP_STARTED step 2: two', 'STEP_FINISHED step 2: two', 'STEP_FINISHED step 1: one']);
  });

  it('a failed run is RUN_ERROR; a failed sub-agent SUBAGENT_ERROR, its open message and step closed first', async () => {
    const sub = `${ROOT}/step-1/agent-1`;
    const out = translate([
      started,
      ev({ type: 'step_started', index: 0, step: 'ask' }),
      ev({ type: 'tool_call', step: 0, tool: 'helper', call: 'tool:0:0', input: '{"question":"?"}', sub_run: { workflow_id: sub, agent: 'helper' } }),
      ev({ type: 'run_started', workflow_id: sub, agent: 'helper', agent_type: 'todo_list', question: '?', memory_id: 'm2' }, { run: sub, agent_path: ['a', 'helper'] }),
      ev({ type: 'step_started', index: 0, step: 'think' }, { run: sub }),
      ev({ type: 'model_delta', role: 'executor', step: 0, call: 'x', text: 'hm' }, { run: sub }),
      ev({ type: 'run_finished', status: 'failed', response: '', error: 'boom' }, { run: sub }),
      ev({ type: 'tool_result', step: 0, tool: 'helper', call: 'tool:0:0', ok: false, output: 'Error: boom' }),
      ev({ type: 'run_finished', status: 'failed', response: '', error: 'the step failed' }),
    ]);
    await expect(verified(out)).resolves.toHaveLength(out.length);
    const types: string[] = out.map((e) => e.type);
    expect(types.slice(types.indexOf('SUBAGENT_STARTED'))).toEqual(['SUBAGENT_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STEP_FINISHED', 'SUBAGENT_ERROR', 'TOOL_CALL_RESULT', 'STEP_FINISHED', 'RUN_ERROR']);
    expect(out.find((e) => e.type === 'SUBAGENT_STARTED')).toMatchObject({ subagentRunId: sub, name: 'helper', parentToolCallId: `${ROOT}#tool:0:0` });
    expect(out.at(-1)).toMatchObject({ message: 'the run failed: the step failed', code: 'failed' });
  });

  it('a stream cut before the run ended closes what is open and says why in RUN_ERROR', async () => {
    const sub = `${ROOT}/step-1/agent-1`;
    const out = translate(
      [
        started,
        ev({ type: 'step_started', index: 0, step: 'ask' }),
        ev({ type: 'tool_call', step: 0, tool: 'helper', call: 'tool:0:0', input: '{}', sub_run: { workflow_id: sub, agent: 'helper' } }),
        ev({ type: 'run_started', workflow_id: sub, agent: 'helper', agent_type: 'todo_list', question: '?', memory_id: 'm2' }, { run: sub }),
        ev({ type: 'model_delta', role: 'planner', call: 'p', text: 'par' }, { run: sub }),
      ],
      'the console stopped',
    );
    await expect(verified(out)).resolves.toHaveLength(out.length);
    expect(out.at(-1)).toMatchObject({ type: 'RUN_ERROR', message: 'the console stopped' });
  });
});
