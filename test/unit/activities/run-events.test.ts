/**
 * Model text published by an activity: the first piece at once, the next ones batched, and each
 * piece stamped with the time it was written, not the time its batch was sent; a last piece that
 * ends the answer left to the workflow when the call asks for it; the run's events handed to the
 * call written first, in the call's first write.
 */
import { ActivityStream, DELTA_FLUSH_MS } from '../../../activities/run-events';
import type { RunEventLog } from '../../../stores/run-events';

type Appended = { run: string; events: { type: string; text?: string; at: string }[]; keys?: (string | undefined)[] };

/** A log that records what is appended (the stream's storage is tested against FerretDB in run-event-log.test.ts). */
function recordingLog(): { log: RunEventLog; appended: Appended[] } {
  const appended: Appended[] = [];
  const log = { append: async (run: string, events: Appended['events'], keys?: Appended['keys']) => void appended.push({ run, events, ...(keys ? { keys } : {}) }) } as unknown as RunEventLog;
  return { log, appended };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('sends the first piece at once, batches the rest, and stamps each piece when it was written', async () => {
  const { log, appended } = recordingLog();
  const text = new ActivityStream(log, 'run-1', 1).modelText({ role: 'planner', call: 0 }, undefined);
  text.push('Hel');
  text.push('lo');
  await sleep(DELTA_FLUSH_MS / 2);
  text.push(' world');
  await text.end();
  expect(appended.map((a) => a.events.map((e) => e.text))).toEqual([['Hel'], ['lo', ' world']]);
  const [lo, world] = appended[1].events.map((e) => Date.parse(e.at));
  expect(world - lo).toBeGreaterThanOrEqual(DELTA_FLUSH_MS / 2 - 5);
  expect(appended.every((a) => a.run === 'run-1' && a.events.every((e) => e.type === 'model_delta'))).toBe(true);
});

it('leaves a last unpublished piece that ends the answer to the caller, and publishes it otherwise', async () => {
  // Streamed: the first piece at once; the last, still waiting for its batch, is the answer's end.
  const streamed = recordingLog();
  const text = new ActivityStream(streamed.log, 'run-1', 1).modelText({ role: 'planner', call: 0 }, undefined);
  text.push('{"steps"');
  text.push(': []}');
  expect(await text.end('{"steps": []}')).toBe('{"steps"'.length);
  expect(streamed.appended.flatMap((a) => a.events.map((e) => e.text))).toEqual(['{"steps"']);

  // Unstreamed (nothing pushed): the answer is one piece, all of it left.
  const whole = recordingLog();
  const once = new ActivityStream(whole.log, 'run-1', 1).modelText({ role: 'planner', call: 1 }, undefined);
  expect(await once.end('the answer')).toBe(0);
  expect(whole.appended).toEqual([]);

  // Published here: several pieces waiting (each stays an event), an answer they do not end (a response filter), or no answer to hand.
  for (const [pieces, answer] of [[['a', 'b', 'c'], 'abc'], [['a', 'raw'], 'filtered'], [['a', 'b'], undefined]] as const) {
    const kept = recordingLog();
    const t = new ActivityStream(kept.log, 'run-1', 1).modelText({ role: 'planner', call: 2 }, undefined);
    pieces.forEach((p) => t.push(p));
    expect(await t.end(answer)).toBeUndefined();
    expect(kept.appended.flatMap((a) => a.events.map((e) => e.text))).toEqual([...pieces]);
  }
});

it('says retry before the text of a retried attempt', async () => {
  const { log, appended } = recordingLog();
  const text = new ActivityStream(log, 'run-1', 2).modelText({ role: 'executor', step: 0, iteration: 1 }, 0);
  text.push('again');
  await text.end();
  expect(appended.flatMap((a) => a.events.map((e) => e.type))).toEqual(['retry', 'model_delta']);
});

it('writes a quick tool call with its result, and a slow one as soon as it has waited its hold', async () => {
  const quick = recordingLog();
  const stream = new ActivityStream(quick.log, 'run-1', 1);
  stream.toolCall(0, 'CalculatorTool', 'tool:0:0', { expression: '1+1' }, undefined, 200);
  await stream.toolResult(0, 'CalculatorTool', 'tool:0:0', true, '2');
  expect(quick.appended.map((a) => a.events.map((e) => e.type))).toEqual([['tool_call', 'tool_result']]);

  const slow = recordingLog();
  const slowStream = new ActivityStream(slow.log, 'run-1', 2);
  slowStream.toolCall(0, 'SlowTool', 'tool:0:1', {}, undefined, 50);
  await sleep(120);
  expect(slow.appended.map((a) => a.events.map((e) => e.type))).toEqual([['retry'], ['tool_call']]);
  await slowStream.toolResult(0, 'SlowTool', 'tool:0:1', true, 'done');
  expect(slow.appended.map((a) => a.events.map((e) => e.type))).toEqual([['retry'], ['tool_call'], ['tool_result']]);
  // The call keeps the time it started, not the time it was written.
  const [call, result] = [slow.appended[1].events[0], slow.appended[2].events[0]].map((e) => Date.parse(e.at));
  expect(result - call).toBeGreaterThanOrEqual(100);
});

describe("the run's events handed to a planning call (events_before)", () => {
  const stepFinished = { events: [{ type: 'step_finished' as const, index: 0, ok: true, result: 'done' }], keys: ['run-a#5'], holdMs: 10_000 };
  const types = (a: Appended[]) => a.map((x) => x.events.map((e) => (e.type === 'model_delta' ? e.text : e.type)));

  it("go first in the first piece's write, keyed, the text pieces not", async () => {
    const { log, appended } = recordingLog();
    const stream = new ActivityStream(log, 'run-1', 1, stepFinished);
    const text = stream.modelText({ role: 'planner', call: 1 }, undefined);
    text.push('{"steps"');
    text.push(': []}');
    expect(await text.end('{"steps": []}')).toBe('{"steps"'.length);
    await stream.close();
    expect(types(appended)).toEqual([['step_finished', '{"steps"']]);
    expect(appended[0].keys).toEqual(['run-a#5', undefined]);
  });

  it('go with the answer when it comes whole before any piece (the answer is not left to the workflow then)', async () => {
    const { log, appended } = recordingLog();
    const stream = new ActivityStream(log, 'run-1', 1, stepFinished);
    expect(await stream.modelText({ role: 'planner', call: 1 }, undefined).end('the answer')).toBeUndefined();
    await stream.close();
    expect(types(appended)).toEqual([['step_finished', 'the answer']]);
  });

  it('go alone when the first piece is late, and at once for a call that does not stream (its answer then left to the workflow)', async () => {
    const late = recordingLog();
    const stream = new ActivityStream(late.log, 'run-1', 1, { ...stepFinished, holdMs: 30 });
    const text = stream.modelText({ role: 'planner', call: 1 }, undefined);
    await sleep(80);
    expect(types(late.appended)).toEqual([['step_finished']]);
    text.push('late');
    await text.end();
    expect(types(late.appended)).toEqual([['step_finished'], ['late']]);

    const unstreamed = recordingLog();
    const now = new ActivityStream(unstreamed.log, 'run-1', 1, { ...stepFinished, holdMs: 0 });
    await now.close();
    expect(types(unstreamed.appended)).toEqual([['step_finished']]);
    expect(await now.modelText({ role: 'planner', call: 1 }, undefined).end('the answer')).toBe(0);
    expect(types(unstreamed.appended)).toEqual([['step_finished']]);
  });

  it('go before whatever the call writes first (a compaction, a retry), and alone when it writes nothing', async () => {
    const retried = recordingLog();
    const stream = new ActivityStream(retried.log, 'run-1', 2, stepFinished);
    const text = stream.modelText({ role: 'planner', call: 1 }, undefined);
    text.push('x');
    await text.end();
    expect(types(retried.appended)).toEqual([['step_finished', 'retry'], ['x']]);

    const silent = recordingLog();
    await new ActivityStream(silent.log, 'run-1', 1, stepFinished).close();
    expect(types(silent.appended)).toEqual([['step_finished']]);
    expect(silent.appended[0].keys).toEqual(['run-a#5']);
  });
});

it('hands the events it was handed on, unwritten, when a turn wrote nothing and asks for tool calls; a slow tool call writes them first', async () => {
  const started = { events: [{ type: 'step_started', index: 0, step: 's' }] as never[], keys: ['exec#3'] };
  // A model turn that wrote nothing: the events go on (the workflow passes them to its tool call).
  const quiet = recordingLog();
  const turn = new ActivityStream(quiet.log, 'run-1', 1, { ...started, holdMs: 1_000 });
  await turn.modelText({ role: 'executor', step: 0, iteration: 0 }, 0).end(undefined, true);
  await turn.close();
  await sleep(20);
  expect(quiet.appended).toEqual([]);
  // A turn that wrote its text first: they went with it; nothing to hand on.
  const spoke = recordingLog();
  const said = new ActivityStream(spoke.log, 'run-1', 1, { ...started, holdMs: 1_000 });
  const text = said.modelText({ role: 'executor', step: 0, iteration: 0 }, 0);
  text.push('thinking');
  await text.end(undefined, true);
  await said.close();
  expect(spoke.appended.map((a) => a.events.map((e) => e.type))).toEqual([['step_started', 'model_delta']]);
  // A tool call given them without a time limit: a quick call hands them on with its own events; a slow one writes them first.
  const quick = recordingLog();
  const fast = new ActivityStream(quick.log, 'run-1', 1, { ...started, holdMs: Infinity });
  fast.toolCall(0, 'T', 'tool:0:0', {}, undefined, 50);
  expect(await fast.handOn()).toBe(false);
  await sleep(80);
  expect(quick.appended).toEqual([]);
  const slowLog = recordingLog();
  const slow = new ActivityStream(slowLog.log, 'run-1', 1, { ...started, holdMs: Infinity });
  slow.toolCall(0, 'T', 'tool:0:0', {}, undefined, 20);
  await sleep(60);
  expect(await slow.handOn()).toBe(true);
  expect(slowLog.appended.map((a) => [a.events.map((e) => e.type), a.keys])).toEqual([[['step_started', 'tool_call'], ['exec#3', undefined]]]);
});
