/**
 * The agent type extension point, used from outside as an agent type of one's own would use it:
 * a test-only type (`one_step`, test/workflows/one-step/) whose workflow a worker runs from a
 * workflows module of its own, named to the client with `addAgentTypes`, its agent files
 * validated and its runs and evals started through the client library.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addAgentTypes, agentFromJson, getStatus, startEval, startRun, suiteFromJson, type AgentTypeSpec } from '../../../client';
import { useHarness } from '../../support/harness';
import { calculatorTurns } from '../../support/script';
import { runProcess } from '../../support/run-process';
import { BUILT_CLI_ARGS } from '../../support/package-build';

/** The agent files' directories, removed after the file's tests. */
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const BIN = BUILT_CLI_ARGS;

jest.setTimeout(60_000);

const ONE_STEP: AgentTypeSpec = { type: 'one_step', workflowType: 'oneStep', parameters: [], fields: [], planApproval: false, parallelSteps: false, fork: false };

const harnessOf = useHarness({ workflowsPath: require.resolve('../../workflows/one-step') });

/** A one_step agent on the scripted model: its one step computes with the calculator. */
const agentFile = (extra: Record<string, unknown> = {}) => ({
  name: 'one-stepper',
  type: 'One_Step',
  llm: { interface: 'scripted', script: { planner: [], executor: [calculatorTurns('6*7', 'the answer is 42')] } },
  tools: [{ type: 'CalculatorTool' }],
  ...extra,
});

describe('an agent type of its own', () => {
  it('is refused in one line, naming the types known, while the process does not know it', () => {
    expect(() => agentFromJson(agentFile(), 'one-step.json')).toThrow(
      /^one-step\.json: invalid agent file: type: expected one of plan_execute_and_reflect, step_by_step, todo_list, plan_and_execute$/,
    );
  });

  describe('once added', () => {
    beforeAll(() => addAgentTypes([ONE_STEP]));

    it('is named among the types known, and refuses parameters its spec does not list, in one line', () => {
      expect(() => agentFromJson({ ...agentFile(), type: 'two_step' }, 'two-step.json')).toThrow(
        'two-step.json: invalid agent file: type: expected one of plan_execute_and_reflect, step_by_step, todo_list, plan_and_execute, one_step',
      );
      expect(() => agentFromJson(agentFile({ parameters: { max_steps: 3 } }), 'one-step.json')).toThrow(
        /^one-step\.json: invalid agent file: parameters\.max_steps: does nothing for a one_step agent \(it is for plan_execute_and_reflect and plan_and_execute\); remove it$/,
      );
      expect(() => agentFromJson(agentFile(), 'one-step.json', { max_steps: 3 })).toThrow(
        'one-step.json: invalid agent parameters: parameters.max_steps: does nothing for a one_step agent (it is for plan_execute_and_reflect and plan_and_execute); remove it',
      );
      expect(() => agentFromJson(agentFile(), 'one-step.json', { max_parallel_steps: 2 })).toThrow(
        'one-step.json: invalid agent parameters: parameters.max_parallel_steps: one_step agents run one step at a time; parallel steps are for plan_execute_and_reflect and plan_and_execute (use 1)',
      );
    });

    it('runs as its own workflow when started as a user starts a run: the answer, progress and memory', async () => {
      const { client, perflow, memory } = harnessOf();
      const { agent, parameters } = agentFromJson(agentFile(), 'one-step.json');
      expect(agent.type as string).toBe('one_step');
      const question = 'What is 6 times 7?';
      const run = await startRun(perflow, { agent, parameters, question });
      const out = await run.handle.result();
      expect(out.response).toBe('the answer is 42');
      expect(out.steps_executed).toBe(1);
      expect(out.metadata).toEqual({ agent_type: 'one_step' });
      expect((await run.handle.describe()).type).toBe('oneStep');

      const progress = await getStatus(client, run.workflowId);
      expect(progress).toMatchObject({ status: 'completed', agent_type: 'one_step', result: 'the answer is 42', plan: [], steps_executed: 1 });
      expect(progress.completed_steps).toEqual([expect.objectContaining({ index: 0, step: question, ok: true, executor_workflow_id: `${run.workflowId}/step-1` })]);

      const root = await memory.interactions.findOne({ _id: run.ids.parent_interaction_id });
      expect(root).toMatchObject({ memory_id: run.ids.memory_id, input: question, response: 'the answer is 42' });
    });

    it('runs from the CLI when PERFLOW_EXTRA_AGENT_TYPES names it, and is refused in one line without', async () => {
      const { perflow } = harnessOf();
      const dir = tempDir('perflow-one-step-cli-');
      const file = join(dir, 'one-step.json');
      writeFileSync(file, JSON.stringify(agentFile()));
      const env = { ...process.env, MONGODB_URI: perflow.config.mongoUri, PERFLOW_TASK_QUEUE: perflow.config.taskQueue };
      const cli = (extra: Record<string, string>) => runProcess(process.execPath, [...BIN, 'run', '--agent', file, '--question', 'What is 6 times 7?', '--wait', '--json'], { env: { ...env, ...extra }, timeoutMs: 60_000 });
      const refused = await cli({});
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^perflow: .*one-step\.json: invalid agent file: type: expected one of plan_execute_and_reflect, step_by_step, todo_list, plan_and_execute\n$/);
      const ran = await cli({ PERFLOW_EXTRA_AGENT_TYPES: 'one_step=oneStep' });
      expect(ran.stderr).toBe('');
      expect(JSON.parse(ran.stdout)).toMatchObject({ response: 'the answer is 42', steps_executed: 1, metadata: { agent_type: 'one_step' } });
      const malformed = await cli({ PERFLOW_EXTRA_AGENT_TYPES: 'one_step' });
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toBe('perflow: PERFLOW_EXTRA_AGENT_TYPES: "one_step" is not TYPE=workflowType (e.g. one_step=oneStep)\n');
    });

    it('runs the cases of an eval as its own workflow', async () => {
      const { perflow } = harnessOf();
      const dir = tempDir('perflow-one-step-');
      writeFileSync(join(dir, 'one-step.json'), JSON.stringify(agentFile()));
      const suite = await suiteFromJson({ name: 'one step', agent: 'one-step.json', cases: [{ id: 'product', question: 'What is 6 times 7?', checks: [{ contains: '42' }] }] }, 'suite.json', dir);
      const { handle } = await startEval(perflow, { suite });
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', passed: 1, failed: 0 });
    });
  });
});
