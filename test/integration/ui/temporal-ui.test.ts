/**
 * The Temporal Web UI shows a finished run legibly: its page, opened in headless Chromium,
 * carries the static summary (the question) that `perflow run` sets. A screenshot is saved
 * outside the repository for a person to look at.
 */
import { existsSync, statSync } from 'node:fs';
import { checkPage } from '../../../scripts/ui-check';
import { startRun } from '../../../client/run';
import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { final, plan, scriptedAgent, useHarness } from '../../support/harness';
import { serverEnv } from '../../support/env';

jest.setTimeout(240_000);

const harness = useHarness();

it('shows a finished run with its question in the Temporal UI', async () => {
  const ui = process.env.PERFLOW_TEMPORAL_UI_URL;
  if (!ui) throw new Error('PERFLOW_TEMPORAL_UI_URL is not set: the UI check needs the Web UI of the Temporal server under test');
  const agent = parseAgentDefinition(
    scriptedAgent({ planner: [plan('look it up'), final('The lighthouse keeper is Ada')], executor: [[{ content: 'Ada keeps it' }]] }, { name: 'ui-check-agent' }),
  );
  const question = 'Who keeps the lighthouse on Tern Island?';
  const run = await startRun(harness().perflow, { agent, parameters: resolveParameters(agent), question });
  await run.handle.result();

  const url = `${ui}/namespaces/${encodeURIComponent(serverEnv().namespace)}/workflows/${encodeURIComponent(run.workflowId)}/${run.runId}/history`;
  // The User Metadata tab holds the static summary and details `perflow run` sets.
  const check = await checkPage(url, [run.workflowId, question, run.ids.memory_id], { tab: 'User Metadata' });
  expect(check.found).toEqual([run.workflowId, question, run.ids.memory_id]);
  expect(existsSync(check.screenshot) && statSync(check.screenshot).size).toBeGreaterThan(10_000);
  expect(check.screenshot.startsWith(process.cwd())).toBe(false);
});
