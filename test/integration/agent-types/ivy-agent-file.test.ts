/**
 * The STEP_BY_STEP example of seed 004, unchanged, runs end to end: its planning and execution
 * models through the real OpenAI SDK against a local Chat Completions server, its key taken
 * from the worker's environment by reference, and its three tools on the worker.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import type { Tool } from '../../../activities/tools/tool';
import type { StepView } from '../../../workflows';
import { progressOf, runInput, startAgentRun, useHarness } from '../../support/harness';
import { chatCompletion, useWireServer } from '../../support/wire-server';

jest.setTimeout(120_000);

const KEY = `sk-ivy-secret-${randomUUID()}`;

const supportTool = (type: string, run: (input: Record<string, string>) => string): Tool<never> =>
  ({ type, description: `Support system: ${type}`, input: z.record(z.string(), z.string()), run: async (input: Record<string, string>) => run(input) }) as unknown as Tool<never>;

const completion = (message: Record<string, unknown>) => chatCompletion(message, { usage: [50, 5] });
const text = (content: string) => completion({ content });
const toolCall = (id: string, name: string, args: Record<string, string>) =>
  completion({ content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });

const server = useWireServer((url) => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: url }));
const harness = useHarness({
  tools: [
    supportTool('create-support-task', () => 'task created'),
    supportTool('create-support-ticket', ({ summary }) => `ticket T-1 created: ${summary}`),
    supportTool('choose-ticket-approvers', ({ ticket }) => `approvers of ${ticket}: alice, bob`),
  ],
});

it("runs seed 004's STEP_BY_STEP example file through the OpenAI interface, its key read from the worker's environment", async () => {
  const file = JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'agents', 'ivy-support-agent-steps.json'), 'utf8')) as unknown;
  const steps = [
    { stepNo: 1, name: 'create the ticket', analysis: 'a ticket first', toolId: 'create-support-ticket', previous: 0, next: 2, resultName: 'ticket', resultDescription: 'the ticket ID' },
    { stepNo: 2, name: 'choose approvers', analysis: 'then approvers', toolId: 'choose-ticket-approvers', previous: 1, next: -1, resultName: 'approvers', resultDescription: 'who approves' },
  ];
  server().reply(
    text('1. Create the support ticket.\n2. Choose its approvers.'),
    text('```json\n' + JSON.stringify(steps) + '\n```'),
    toolCall('c1', 'create-support-ticket', { summary: 'printer on fire' }),
    text('Ticket T-1 created'),
    text('Decision: NO'),
    toolCall('c2', 'choose-ticket-approvers', { ticket: 'T-1' }),
    text('Approvers of T-1: alice, bob'),
    text('Ticket and approvers are done.\nDecision: COMPLETE'),
  );
  const handle = await startAgentRun(harness(), runInput(file, 'The office printer is on fire, please open a ticket'), 'ivy');
  const out = await handle.result();
  expect(out.response).toBe('Approvers of T-1: alice, bob');
  expect((out.metadata?.steps as StepView[]).map((s) => [s.stepNo, s.toolId, s.status, s.decision])).toEqual([
    [1, 'create-support-ticket', 'completed', 'NO'],
    [2, 'choose-ticket-approvers', 'completed', 'COMPLETE'],
  ]);

  type Body = { model: string; messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
  const bodies = server().requests.map((r) => r.body as Body);
  expect(bodies).toHaveLength(8);
  // Planning model plans; the execution model maps, executes and decides.
  expect(bodies.map((b) => b.model)).toEqual(['gpt-4o', ...Array(7).fill('gpt-4o-mini')]);
  expect(String(bodies[0].messages.at(-1)?.content)).toContain('GOAL: Create support ticket and assign approvers efficiently\n\nCreate detailed step-by-step plan to handle support request\n\nUSER QUERY:');
  expect(bodies[2].tools?.map((t) => t.function.name)).toEqual(['create-support-ticket']);
  expect(bodies[5].tools?.map((t) => t.function.name)).toEqual(['choose-ticket-approvers']);
  expect(String(bodies[5].messages.at(-1)?.content)).toContain('- ticket: Ticket T-1 created');
  expect(String(bodies[4].messages.at(-1)?.content)).toContain('Execute each step in planned sequence and verify completion\n\nCURRENT SITUATION:');
  for (const r of server().requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);

  // The key never enters the run: neither the histories nor memory hold it.
  const needle = Buffer.from(KEY);
  for (const id of [handle.workflowId, `${handle.workflowId}/step-1`, `${handle.workflowId}/step-2`]) {
    const history = await harness().client.workflow.getHandle(id).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect([id, bytes.includes(Buffer.from('OPENAI_API_KEY')), bytes.includes(needle)]).toEqual([id, true, false]);
  }
  for (const { name } of await harness().db.listCollections().toArray()) {
    for (const doc of await harness().db.collection(name).find().toArray()) expect([name, JSON.stringify(doc).includes(KEY)]).toEqual([name, false]);
  }
  const progress = await progressOf(harness(), handle.workflowId);
  expect(progress.agent).toBe('Step-by-Step Support Agent');
  // At the price table's prices: one gpt-4o call ($2.50 / $10 per million) and seven gpt-4o-mini calls ($0.15 / $0.60), 50 in and 5 out each.
  expect(progress.usage).toEqual({ input_tokens: 400, output_tokens: 40, cost_usd: expect.closeTo((50 * 2.5 + 5 * 10 + 7 * (50 * 0.15 + 5 * 0.6)) / 1e6, 12) });
});
