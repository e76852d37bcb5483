/**
 * Remote A2A agents as tools, through the CLI: a remote agent served by @a2a-js/sdk's own server
 * (test/support/a2a-remote.ts) is described by its card and called by a plan-execute-reflect
 * run with the scripted model; its failure is an observation naming it; a host the worker
 * policy does not allow is refused before the remote sees a request; its question waits in
 * `perflow pending` and a person's `approve-tool --input` answers it on the same remote task
 * (`deny-tool` cancels it); cancelling the run cancels the remote task.
 */
import { useCli } from '../../support/cli';
import { final, plan, TEST_POLICY, until } from '../../support/harness';
import { startA2ARemote, type A2ARemote } from '../../support/a2a-remote';


jest.setTimeout(180_000);

// The worker reaches 127.0.0.1 only: the same remote under `localhost` is a host it refuses.
const cli = useCli('a2a', { policy: { ...TEST_POLICY, hosts: ['127.0.0.1'] } });
let remote: A2ARemote;
beforeAll(async () => {
  remote = await startA2ARemote();
});
afterAll(() => remote?.close());

/** An agent whose one step sends `message` to the remote agent and answers with the reply. */
function agent(name: string, message: string, url = remote.url, answer = 'relayed') {
  return cli.agentFile(name, {
    name,
    type: 'plan_execute_and_reflect',
    llm: { interface: 'scripted', script: { planner: [plan('ask the flight booker'), final(answer)], executor: [[{ tool_calls: [{ name: 'booker', input: { message } }] }, { content: 'done' }]] } },
    tools: [{ type: 'A2AAgentTool', name: 'booker', parameters: { url, timeout_seconds: 60 } }],
  });
}

/** What the executor's model was shown after its tool call: the observation. */
const observationAbout = (text: string) =>
  cli.harness.recorder
    .filter((r) => r.position.role === 'executor' && r.messages.some((m) => m.content.includes(text)))
    .flatMap((r) => r.messages.filter((m) => m.role === 'tool'))
    .at(-1)?.content;

const started = async (args: string[]) => {
  const r = await cli.perflow(['run', ...args, '--json']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { workflow_id: string }).workflow_id;
};

it('describes the remote agent by its card and answers with its reply (text and data parts)', async () => {
  const r = await cli.perflow(['run', '--agent', agent('a2a-echo', 'flights Beijing to Seattle?'), '--question', 'How many flights?', '--wait']);
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe('relayed');
  const offered = cli.harness.recorder.find((q) => q.position.role === 'executor' && q.messages.some((m) => m.content.includes('ask the flight booker')))?.tools?.find((t) => t.name === 'booker');
  expect(offered?.description).toContain('The remote agent "Flight Booker" (A2A): Books flights between cities.');
  expect(offered?.description).toContain('- Book a flight: Finds and books a flight. (e.g. "Book a flight from Beijing to Seattle")');
  expect(offered?.input_schema).toMatchObject({ required: ['message'] });
  expect(observationAbout('ask the flight booker')).toBe('echo: flights Beijing to Seattle?\n{"flights":3}');
});

it('gives a remote failure to the model as an observation naming the agent', async () => {
  const r = await cli.perflow(['run', '--agent', agent('a2a-fail', 'fail now'), '--question', 'Book it', '--wait']);
  expect(r.code).toBe(0);
  const seen = cli.harness.recorder.filter((q) => q.position.role === 'executor').flatMap((q) => q.messages.filter((m) => m.role === 'tool').map((m) => m.content));
  expect(seen).toContainEqual(expect.stringMatching(/^Error: remote agent "booker" failed the task \(.+\): the flight database is down$/));
});

it('refuses a host the worker policy does not allow, before the remote sees any request (worker and CLI)', async () => {
  const before = remote.requests.length;
  const elsewhere = remote.url.replace('127.0.0.1', 'localhost');
  const r = await cli.perflow(['run', '--agent', agent('a2a-refused', 'hello', elsewhere), '--question', 'Book it', '--wait']);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/remote agent "booker": host "localhost" is not allowed on this worker; allow it in the worker policy \(PERFLOW_ALLOW_HOSTS=localhost\)/);
  // A client that knows the policy refuses before the run starts.
  const early = await cli.perflow(['run', '--agent', agent('a2a-refused-early', 'hello', elsewhere), '--question', 'Book it'], { PERFLOW_ALLOW_HOSTS: '127.0.0.1' });
  expect(early.code).toBe(2);
  expect(early.stderr.trim().split('\n')).toHaveLength(1);
  expect(early.stderr).toMatch(/^perflow: remote agent "booker": host "localhost" is not allowed/);
  expect(remote.requests.slice(before)).toEqual([]);
});

it('puts the remote agent’s question in the inbox and sends the person’s answer to the same remote task', async () => {
  const createdBefore = remote.tasksCreated.length;
  const id = await started(['--agent', agent('a2a-ask', 'ask which city', remote.url, 'booked'), '--question', 'Book me a flight']);
  const pending = await until(() => cli.perflow(['pending']), (p) => p.stdout.includes(id), 'the run waits for an answer');
  expect(pending.stdout).toContain(`awaiting an answer to a remote agent's question (tool-1-1) in step 1: booker asks: Which city should the flight go to?`);
  expect(pending.stdout).toContain(`answer: perflow approve-tool ${id} --input '{"message": "YOUR ANSWER"}'`);
  // Approving without an answer is refused in one line; the answer goes through.
  const bare = await cli.perflow(['approve-tool', id]);
  expect(bare.code).not.toBe(0);
  expect(bare.stderr).toMatch(/booker asks a question: answer it with --input/);
  const answered = await cli.perflow(['approve-tool', id, '--input', '{"message":"Seattle"}', '--by', 'ops']);
  expect(answered.code).toBe(0);
  const result = await cli.perflow(['result', id]);
  expect(result.stdout.trim()).toBe('booked');
  expect(observationAbout('ask the flight booker')).toBe('Booked the flight to Seattle.');
  expect(remote.tasksCreated.length - createdBefore).toBe(1);
});

it('cancels the remote task whose question a person declines, and tells the model why', async () => {
  const id = await started(['--agent', agent('a2a-decline', 'ask which city', remote.url, 'not booked'), '--question', 'Book me a flight']);
  await until(() => cli.perflow(['pending']), (p) => p.stdout.includes(id), 'the run waits for an answer');
  const task = remote.tasksCreated.at(-1)!;
  expect((await cli.perflow(['deny-tool', id, '--reason', 'no trips this month', '--by', 'ops'])).code).toBe(0);
  expect((await cli.perflow(['result', id])).stdout.trim()).toBe('not booked');
  expect(remote.cancelled).toContain(task);
  const seen = cli.harness.recorder.filter((q) => q.position.role === 'executor').flatMap((q) => q.messages.filter((m) => m.role === 'tool').map((m) => m.content));
  expect(seen).toContain(`Error: the remote agent "booker" asked a question that was not answered (declined by ops: no trips this month); its task ${task} was cancelled`);
});

it('declines a question nobody answers within approval_timeout, even where the timeout approves calls', async () => {
  const id = await started(['--agent', agent('a2a-timeout', 'ask which city', remote.url, 'not booked'), '--question', 'Book me a flight', '--param', 'approval_timeout=1', '--param', 'approval_timeout_action=approve']);
  expect((await cli.perflow(['result', id])).stdout.trim()).toBe('not booked');
  const seen = cli.harness.recorder.filter((q) => q.position.role === 'executor').flatMap((q) => q.messages.filter((m) => m.role === 'tool').map((m) => m.content));
  expect(seen).toContainEqual(expect.stringMatching(/^Error: the remote agent "booker" asked a question that was not answered \(declined by approval_timeout: nobody answered within 1 s\); its task (\S+) was cancelled$/));
  expect(remote.cancelled).toContain(remote.tasksCreated.at(-1));
});

it('cancels the remote task when the run is cancelled', async () => {
  const held = remote.held();
  const id = await started(['--agent', agent('a2a-cancel', 'hold the line'), '--question', 'Wait for it']);
  const task = await held;
  const cancelled = await cli.perflow(['cancel', id]);
  expect(cancelled.stderr).toBe('');
  expect(cancelled.code).toBe(0);
  await until(async () => remote.cancelled, (c) => c.includes(task), 'the remote task is cancelled');
});
