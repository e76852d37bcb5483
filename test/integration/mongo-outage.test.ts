/**
 * A MongoDB outage mid-run is waited out: the harness's own MongoDB-wire server is stopped while
 * a tool call ends and started again on the same port and data; the run completes with each
 * memory record written once.
 */
import { z } from 'zod';
import type { Tool } from '../../activities/tools/tool';
import { planExecuteReflect, progressQuery } from '../../workflows';
import { final, plan, runInput, scriptedAgent, useHarness, workflowId } from '../support/harness';

jest.setTimeout(120_000);

let release: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (release = resolve));
const waitTool = {
  type: 'WaitTool',
  description: 'Waits until released by the test.',
  input: z.object({}),
  run: async () => {
    await gate;
    return 'released';
  },
} as unknown as Tool<never>;

// A MongoDB-wire server of this test's own, so it can be stopped and started again.
const harness = useHarness({ tools: [waitTool], ownMongo: {} });
const mongo = () => harness().ownMongo!;

const canPause = () => mongo().pause !== undefined && mongo().resume !== undefined;

describe('a MongoDB outage during a run', () => {
  it('is waited out: the run completes and every interaction exists exactly once', async () => {
    if (!canPause()) throw new Error(`this test needs a server it started itself, got ${mongo().kind}`);
    const handle = await harness().client.workflow.start(planExecuteReflect, {
      taskQueue: harness().taskQueue,
      workflowId: workflowId('outage'),
      args: [
        runInput(
          scriptedAgent(
            {
              planner: [plan('wait', 'second'), plan('second'), final('survived')],
              executor: [[{ tool_calls: [{ name: 'WaitTool', input: {} }] }, { content: 'first done' }], [{ content: 'second done' }]],
            },
            { tools: [{ type: 'WaitTool' }] },
          ),
          'survive an outage',
        ),
      ],
    });
    for (let i = 0; i < 100 && (await handle.query(progressQuery)).status !== 'executing'; i++) await new Promise((r) => setTimeout(r, 100));

    await mongo().pause!();
    release(); // the tool finishes while the database is down: its record and the step trace must wait
    await new Promise((r) => setTimeout(r, 4_000));
    expect((await handle.query(progressQuery)).status).not.toBe('completed');
    await mongo().resume!();

    const out = await handle.result();
    expect(out.response).toBe('survived');
    const interactions = await harness().memory.interactions
      .find({ memory_id: { $in: [out.memory_id, out.executor_agent_memory_id] } })
      .toArray();
    // planner memory: root + 2 traces; executor memory: root + 2 steps + 1 tool call
    expect(interactions).toHaveLength(7);
    expect(new Set(interactions.map((i) => i._id)).size).toBe(7);
    const root = interactions.find((i) => i._id === out.parent_interaction_id);
    expect(root?.response).toBe('survived');
    expect(interactions.filter((i) => i.origin === 'tool').map((i) => i.response)).toEqual(['released']);
  });
});
