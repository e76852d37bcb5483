/**
 * Which model `npm run demo` runs on: the first provider whose key it finds, in a fixed order,
 * from that provider's example agent file (examples/), else the scripted model. Said in one line,
 * with the variable that decided it, so a person knows what they are paying for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentDefinition, type AgentDefinition } from '../core/agent';

/** The demo's model: its agent, and the line that says which it is and why. */
export interface DemoModel {
  agent: AgentDefinition;
  scripted: boolean;
  said: string;
}

interface Provider {
  /** The variables that choose it (any one of them). */
  keys: string[];
  example: string;
  /** The variable that names another model than the example's. */
  modelVariable?: string;
  /** The endpoint variable the worker reads, given to the agent file too. */
  baseUrlVariable?: string;
  /** Besides a key, what it needs (Bedrock: a model id and AWS credentials). */
  ready?: (env: NodeJS.ProcessEnv) => boolean;
  llm?: (env: NodeJS.ProcessEnv) => Record<string, unknown>;
}

/** In the order they are tried: the first whose key is set is the demo's model. */
export const DEMO_PROVIDERS: readonly Provider[] = [
  { keys: ['ANTHROPIC_API_KEY'], example: 'plan-execute-reflect.anthropic.json', modelVariable: 'ANTHROPIC_MODEL' },
  { keys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], example: 'plan-execute-reflect.gemini.json', modelVariable: 'GEMINI_MODEL' },
  { keys: ['OPENAI_API_KEY'], example: 'plan-execute-reflect.openai.json', modelVariable: 'OPENAI_MODEL', baseUrlVariable: 'OPENAI_BASE_URL' },
  {
    keys: ['BEDROCK_MODEL_ID'],
    example: 'plan-execute-reflect.bedrock-claude.json',
    ready: (env) => Boolean(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE),
    llm: (env) => ({ interface: 'bedrock/converse/claude', model: env.BEDROCK_MODEL_ID, ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}) }),
  },
];

/** The demo's model for this environment; `examples` is the folder of example agent files. */
export function demoModel(env: NodeJS.ProcessEnv, examples: string): DemoModel {
  const read = (name: string) => JSON.parse(readFileSync(join(examples, name), 'utf8')) as Record<string, unknown>;
  for (const p of DEMO_PROVIDERS) {
    const key = p.keys.find((k) => env[k]);
    if (!key || (p.ready && !p.ready(env))) continue;
    const file = read(p.example);
    const model = p.modelVariable ? env[p.modelVariable] : undefined;
    const baseUrl = p.baseUrlVariable ? env[p.baseUrlVariable] : undefined;
    const llm = p.llm ? p.llm(env) : { ...(file.llm as object), ...(model ? { model } : {}), ...(baseUrl ? { base_url: baseUrl } : {}) };
    const agent = parseAgentDefinition({ ...file, llm });
    return { agent, scripted: false, said: `model: ${agent.llm.interface} ${agent.llm.model} (${key} is set; examples/${p.example})` };
  }
  const names = DEMO_PROVIDERS.flatMap((p) => p.keys).join(', ');
  return {
    agent: parseAgentDefinition(read('plan-execute-reflect.scripted.json')),
    scripted: true,
    said: `model: scripted offline run (none of ${names} is set): the plan and the tool call are scripted; the tool call against the data is real and the answer quotes its result`,
  };
}
