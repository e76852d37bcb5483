/**
 * Reading an agent tree's files is where a caller's paths meet the disk: a console's agents may
 * name only files of its folder (an inline agent naming `../secret.json` gets one line and the
 * file is never parsed into a run), and a Nexus agent tool may name only a served file by name.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentFromJson, readSubAgentFiles } from '../../../client';
import { parseAgentDefinition } from '../../../core/agent';

const scripted = { interface: 'scripted', script: { planner: [] } };
const withTool = (agent: string) => ({ name: 'root', type: 'plan_execute_and_reflect', llm: scripted, tools: [{ type: 'AgentTool', name: 'helper', parameters: { agent } }] });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-sub-agent-files-'));
  mkdirSync(join(dir, 'agents'));
  // A JSON file outside the agents folder: what an attacker would have the console read.
  writeFileSync(join(dir, 'secret.json'), JSON.stringify({ name: 'secret', type: 'plan_execute_and_reflect', llm: scripted }));
  writeFileSync(join(dir, 'agents', 'helper.json'), JSON.stringify({ name: 'helper', type: 'plan_execute_and_reflect', llm: scripted }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an agent tree's files", () => {
  it('a sub-agent outside the folder is refused in one line, whatever the path', async () => {
    const within = join(dir, 'agents');
    for (const path of ['../secret.json', join(dir, 'secret.json'), './../agents/../secret.json']) {
      await expect(readSubAgentFiles(withTool(path), join(within, 'agent.json'), { within })).rejects.toThrow(/tools\[0\] "helper": agent ".*" is outside the agents folder; sub-agents must be files of the folder/);
    }
    // The same tree with a file of the folder is read and resolved.
    const files = await readSubAgentFiles(withTool('./helper.json'), join(within, 'agent.json'), { within });
    const { agent } = agentFromJson(withTool('./helper.json'), 'agent', {}, { subAgentFiles: files });
    expect((agent.tools[0].parameters as { sub_agent: { definition: { name: string } } }).sub_agent.definition.name).toBe('helper');
  });

  it('an agent tool whose files were not read is refused, not run without its sub-agent', () => {
    expect(() => agentFromJson(withTool('./helper.json'), 'agent')).toThrow(/tools\[0\] "helper": sub-agent files are read with the agent file/);
  });

  it('a Nexus agent tool names a served agent by name only: no path reaches the serving worker', () => {
    const nexus = (agent: string) => ({ name: 'n', type: 'plan_execute_and_reflect', llm: scripted, tools: [{ type: 'NexusAgentTool', parameters: { endpoint: 'e', agent } }] });
    for (const agent of ['../secret', '/etc/passwd', 'a/b', '']) expect(() => parseAgentDefinition(nexus(agent))).toThrow(/tools\[0\]\.parameters\.agent: expected the name of an agent the endpoint's worker serves/);
    expect(parseAgentDefinition(nexus('accountant')).tools[0].type).toBe('NexusAgentTool');
  });
});
