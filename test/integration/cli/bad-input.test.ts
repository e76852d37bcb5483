/**
 * Bad input across every command, as one table: each case is one line on stderr starting
 * `perflow:` that names the offending argument, ID, option or file, the documented exit code
 * (2 bad input, 1 a state the user can change), nothing on stdout with `--json`, and no run
 * started or changed. A command added to the CLI gets its rows here. The rows run the CLI's
 * `main` in this process, its output captured (one after another: a process a row would cost a
 * second each); other CLI tests run it as a subprocess.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../../servers';
import { nonEmptyLines, useCli } from '../../support/cli';
import { main } from '../../../cli/main';
import { final, plan, runInput, scriptedAgent, startAgentRun } from '../../support/harness';
import { typedAgent } from '../../support/typed-agents';

jest.setTimeout(180_000);

const cli = useCli('bad-input');

interface Case {
  /** The command line, `{A}` for a finished plan_execute_and_reflect run, `{S}` a finished step_by_step run, `{D}` the test's directory. */
  args: string;
  code: 1 | 2;
  /** What the line must name. */
  names: string;
  env?: 'no-temporal' | 'no-mongo' | 'keys';
}

const CASES: Case[] = [
  // run
  { args: 'run --question q', code: 2, names: '--agent' },
  { args: 'run --agent {D}/missing.json --question q', code: 2, names: '{D}/missing.json' },
  { args: 'run --agent {D}/not-json.json --question q', code: 2, names: '{D}/not-json.json' },
  { args: 'run --agent {D}/bad-type.json --question q', code: 2, names: 'parameters.max_steps' },
  { args: 'run --agent {D}/ok.json', code: 2, names: '--question' },
  { args: 'run --agent {D}/ok.json --question q --param nokey', code: 2, names: '--param' },
  { args: 'run --agent {D}/ok.json --question q --param plan_approval=sometimes', code: 2, names: 'parameters.plan_approval' },
  { args: 'run --agent {D}/ok.json --question q --param max_parallel_steps=-1', code: 2, names: 'parameters.max_parallel_steps' },
  { args: 'run --agent {D}/ok.json --question q --param max_steps=100000000', code: 2, names: `parameters.max_steps: 100000000 is above this deployment's limit of 5000 (raise it with PERFLOW_PARAMETER_LIMITS` },
  { args: `run --agent {D}/ok.json --question ${'x'.repeat(2 * 1024 * 1024)}`, code: 2, names: 'question: 2097152 characters is above the limit of 100000' },
  { args: 'run --agent {D}/ok.json --question q --memory-id no-such-memory', code: 2, names: 'no-such-memory' },
  { args: 'run --agent {D}/ok.json --question q --follow --wait', code: 2, names: '--follow' },
  { args: 'run --agent {D}/ok.json --question q --bogus', code: 2, names: '--bogus' },
  // status, result, cancel, list
  { args: 'status', code: 2, names: 'workflow ID' },
  { args: 'status no-such-run', code: 2, names: 'no-such-run' },
  { args: 'result no-such-run', code: 2, names: 'no-such-run' },
  { args: 'cancel no-such-run', code: 2, names: 'no-such-run' },
  { args: 'list --status weird', code: 2, names: '--status' },
  { args: 'status {A}', code: 1, names: 'TEMPORAL_ADDRESS', env: 'no-temporal' },
  // memory
  { args: 'memory', code: 2, names: 'memory needs a memory ID' },
  { args: 'memory no-such-memory', code: 2, names: 'no-such-memory' },
  { args: 'memory some-memory', code: 1, names: 'MONGODB_URI', env: 'no-mongo' },
  // history, replay, reset
  { args: 'history {A}', code: 2, names: '--out' },
  { args: 'history no-such-run --out {D}/h.json', code: 2, names: 'no-such-run' },
  { args: 'replay', code: 2, names: 'a workflow ID or --history FILE' },
  { args: 'replay no-such-run', code: 2, names: 'no-such-run' },
  { args: 'replay --history {D}/missing.json', code: 2, names: '{D}/missing.json' },
  { args: 'replay --history {D}/not-json.json', code: 2, names: '{D}/not-json.json' },
  { args: 'replay --history {D}/ok.json --workflow-id x', code: 2, names: '{D}/ok.json' },
  { args: 'reset no-such-run', code: 2, names: 'no-such-run' },
  { args: 'reset {A} --to nowhere', code: 2, names: '--to' },
  // fork, diff
  { args: 'fork no-such-run --from-step 1', code: 2, names: 'no-such-run' },
  { args: 'fork {A}', code: 2, names: '--from-step' },
  { args: 'fork {A} --from-step two', code: 2, names: '--from-step' },
  { args: 'fork {A} --from-step 9', code: 2, names: '--from-step 9' },
  { args: 'fork {S} --from-step 1', code: 2, names: 'step_by_step' },
  { args: 'fork {A} --from-step 1 --agent {D}/missing.json', code: 2, names: '{D}/missing.json' },
  { args: 'diff {A}', code: 2, names: 'diff needs two workflow IDs' },
  { args: 'diff {A} no-such-run', code: 2, names: '"no-such-run"' },
  { args: 'diff no-such-run {A}', code: 2, names: '"no-such-run"' },
  // people's decisions
  { args: 'approve no-such-run', code: 2, names: 'no-such-run' },
  { args: 'approve {A}', code: 1, names: 'has ended' },
  { args: 'approve {A} --steps-file {D}/missing.json', code: 2, names: '{D}/missing.json' },
  { args: 'reject {A}', code: 2, names: '--reason' },
  { args: 'reject {A} --reason no', code: 1, names: 'has ended' },
  { args: 'approve-tool {A}', code: 1, names: 'has ended' },
  { args: 'approve-tool {A} --input notjson', code: 2, names: '--input' },
  { args: 'deny-tool {A}', code: 2, names: '--reason' },
  { args: 'guide {A}', code: 2, names: 'guide' },
  { args: 'guide {A} be quick', code: 1, names: 'has ended' },
  { args: 'pause no-such-run', code: 2, names: 'no-such-run' },
  { args: 'resume {A}', code: 1, names: 'has ended' },
  { args: 'pending --tenant', code: 2, names: '--tenant' },
  // codec-server
  { args: 'codec-server', code: 2, names: 'PERFLOW_ENCRYPTION_KEYS' },
  { args: 'codec-server --port abc', code: 2, names: '--port', env: 'keys' },
  // the command itself
  { args: 'no-such-command', code: 2, names: 'no-such-command' },
];

const ids: Record<string, string> = {};

beforeAll(async () => {
  const d = cli.dir;
  writeFileSync(join(d, 'not-json.json'), '{ not json');
  cli.agentFile('ok', { name: 'sweep', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [final('ok')] } } });
  cli.agentFile('bad-type', { name: 'sweep', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] } }, parameters: { max_steps: 'many' } });
  const finished = async (input: ReturnType<typeof runInput>, prefix: string) => {
    const handle = await startAgentRun(cli.harness, input, prefix);
    await handle.result();
    return handle.workflowId;
  };
  ids.A = await finished(runInput(scriptedAgent({ planner: [plan('one'), final('done')], executor: [[{ content: '1' }]] }), 'the sweep\'s run'), 'sweep-a');
  ids.S = await finished(runInput(typedAgent('step_by_step', 1), 'the sweep\'s step_by_step run'), 'sweep-s');
  ids.D = d;
});

/** What `run` wrote on stdout and stderr, and the exit code it returned. */
async function captured(run: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
  const written = { stdout: '', stderr: '' };
  const spies = (['stdout', 'stderr'] as const).map((stream) =>
    jest.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      written[stream] += chunk.toString();
      return true;
    }),
  );
  try {
    return { code: await run(), ...written };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

const fill = (s: string) => s.replace(/\{([ASD])\}/g, (_, k: string) => ids[k]);

it('every command answers bad input in one line naming what to fix, with its exit code, and nothing on stdout', async () => {
  const deadPort = await freePort();
  const envOf = (c: Case): Record<string, string> =>
    c.env === 'no-temporal' ? { TEMPORAL_ADDRESS: `127.0.0.1:${deadPort}` } : c.env === 'no-mongo' ? { MONGODB_URI: `mongodb://127.0.0.1:${deadPort}/db` } : c.env === 'keys' ? { PERFLOW_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}` } : { MONGODB_URI: cli.memoryUri };
  const before = await cli.harness.client.workflow.count(`TaskQueue = '${cli.harness.taskQueue}'`);
  const historyOfA = (await cli.harness.client.workflow.getHandle(ids.A).fetchHistory()).events?.length;
  const seen: string[] = [];
  for (const c of CASES) {
    const args = [...fill(c.args).split(' '), '--json'];
    const r = await captured(() => main(args, { ...process.env, ...cli.env, ...envOf(c) }));
    const lines = nonEmptyLines(r.stderr);
    const ok = r.code === c.code && r.stdout === '' && lines.length === 1 && lines[0].startsWith('perflow: ') && lines[0].includes(fill(c.names));
    if (!ok) seen.push(`perflow ${args.join(' ')} → exit ${r.code}, stdout ${JSON.stringify(r.stdout.slice(0, 80))}, stderr ${JSON.stringify(r.stderr.slice(0, 400))}; expected exit ${c.code} naming ${fill(c.names)}`);
  }
  expect(seen).toEqual([]);
  expect((await cli.harness.client.workflow.count(`TaskQueue = '${cli.harness.taskQueue}'`)).count).toBe(before.count);
  expect((await cli.harness.client.workflow.getHandle(ids.A).fetchHistory()).events?.length).toBe(historyOfA);
});
