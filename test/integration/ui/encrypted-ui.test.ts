/**
 * The Temporal Web UI shows an encrypted run's question only through perflow's codec server:
 * headless Chromium with the UI's codec endpoint set for this browser (the UI keeps its "Codec
 * Server" setting in localStorage; the shared dev server has no --ui-codec-endpoint) shows it
 * decoded; without it the page does not show it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { checkPage } from '../../../scripts/ui-check';
import { startCodecServer, type CodecServer } from '../../../client/codec-server';
import { startRun } from '../../../client/run';
import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { parseEncryptionKeys } from '../../../config/env';
import { final, plan, scriptedAgent, useHarness } from '../../support/harness';
import { serverEnv } from '../../support/env';

jest.setTimeout(300_000);

const keyring = parseEncryptionKeys(`ui-key:${randomBytes(32).toString('base64')}`);
/**
 * The UI's own "Codec Server" setting for this browser (temporalio/ui data-encoder-config):
 * the endpoint, and "use my endpoint over the server's", which this UI version needs to use it.
 */
const UI_CODEC_SETTING = (endpoint: string) => ({ endpoint: JSON.stringify(endpoint), overrideRemoteCodecConfiguration: 'true' });

const harness = useHarness({ encryption: keyring });
let codec: CodecServer | undefined;
afterAll(async () => {
  await codec?.close();
});

it('shows the decoded question of an encrypted run with the codec endpoint set, and not without it', async () => {
  const ui = process.env.PERFLOW_TEMPORAL_UI_URL;
  if (!ui) throw new Error('PERFLOW_TEMPORAL_UI_URL is not set: the UI check needs the Web UI of the Temporal server under test');
  const h = harness();
  const agent = parseAgentDefinition(
    scriptedAgent({ planner: [plan('look it up'), final('The keeper is Ada')], executor: [[{ content: 'Ada keeps it' }]] }, { name: 'encrypted-ui-agent' }),
  );
  const question = `Who keeps the encrypted lighthouse ${randomUUID().slice(0, 8)}?`;
  const run = await startRun(h.perflow, { agent, parameters: resolveParameters(agent), question });
  await run.handle.result();
  codec = await startCodecServer({ keyring, port: 0, uiOrigins: [new URL(ui).origin] });

  const url = `${ui}/namespaces/${encodeURIComponent(serverEnv().namespace)}/workflows/${encodeURIComponent(run.workflowId)}/${run.runId}/history`;
  // The User Metadata tab holds the static summary and details (the question), encrypted like every payload.
  const decoded = await checkPage(url, [run.workflowId, question], { tab: 'User Metadata', localStorage: UI_CODEC_SETTING(codec.url), timeoutMs: 60_000 });
  expect(decoded.found).toEqual([run.workflowId, question]);

  const encrypted = await checkPage(url, [run.workflowId], { tab: 'User Metadata', absent: [question], timeoutMs: 60_000 });
  expect(encrypted.found).toEqual([run.workflowId]);
  expect(encrypted.present).toEqual([]);
});
