/**
 * Reading an agent tree: the agent files an agent's `AgentTool` entries name, read relative to
 * the file that names them, before anything is validated — so a run's input carries every
 * sub-agent and a worker never reads a path a caller chose. Cycles and trees deeper than
 * MAX_AGENT_DEPTH are refused here, in one line naming the chain of files.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { MAX_AGENT_DEPTH } from '../core/agent';
import { AGENT_TOOL_TYPE } from '../core/tool-types';
import { PerflowError } from './errors';
import { readJsonFile } from './json-file';

/** An agent's sub-agent files, read: what `agentFromJson` resolves `AgentTool` entries from. */
export interface SubAgentFiles {
  /** The file the agent came from: its entries' paths are relative to its folder. */
  file: string;
  /** Each agent file of the tree, parsed JSON by absolute path. */
  files: ReadonlyMap<string, unknown>;
}

export interface ReadSubAgentOptions {
  /** Every file of the tree must lie in this folder (a console's agents folder). */
  within?: string;
}

/** The paths an agent file's `AgentTool` entries name, as written, with their entry's index and name. */
function agentToolPaths(json: unknown): Array<{ index: number; name: string; path: string }> {
  const tools = (json as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t: unknown, index) => {
    const entry = t as { type?: unknown; name?: unknown; parameters?: { agent?: unknown } } | null;
    if (entry?.type !== AGENT_TOOL_TYPE || typeof entry.parameters?.agent !== 'string' || entry.parameters.agent.trim() === '') return [];
    return [{ index, name: typeof entry.name === 'string' ? entry.name : entry.parameters.agent, path: entry.parameters.agent }];
  });
}

/** A file as errors name it: relative to the working folder when under it. */
const shown = (file: string): string => {
  const rel = relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') ? rel : file;
};

/**
 * Reads the agent files below `json` (the content of `file`), depth first. A file named twice is
 * read once; an agent that reaches itself, a tree deeper than MAX_AGENT_DEPTH, a file outside
 * `within` or one that cannot be read is refused, naming the chain.
 */
export async function readSubAgentFiles(json: unknown, file: string, o: ReadSubAgentOptions = {}): Promise<SubAgentFiles> {
  const root = resolve(file);
  const files = new Map<string, unknown>();
  const visit = async (content: unknown, at: string, chain: string[]): Promise<void> => {
    for (const entry of agentToolPaths(content)) {
      const target = resolve(dirname(at), entry.path);
      const where = `${shown(at)}: tools[${entry.index}] "${entry.name}"`;
      const path = [...chain, target].map(shown).join(' → ');
      if (chain.includes(target)) throw new PerflowError('invalid', `${where}: agent tools form a cycle (${path}); an agent cannot be its own sub-agent`);
      if (chain.length + 1 > MAX_AGENT_DEPTH) throw new PerflowError('invalid', `${where}: the agent tree is deeper than ${MAX_AGENT_DEPTH} levels (${path})`);
      if (o.within !== undefined && !resolve(target).startsWith(resolve(o.within) + sep)) {
        throw new PerflowError('invalid', `${where}: agent "${entry.path}" is outside the agents folder; sub-agents must be files of the folder`);
      }
      if (!files.has(target)) {
        try {
          files.set(target, await readJsonFile(target, 'agent file'));
        } catch (err) {
          throw new PerflowError(err instanceof PerflowError ? err.kind : 'invalid', `${where}: ${(err as Error).message}`, { cause: err });
        }
      }
      await visit(files.get(target), target, [...chain, target]);
    }
  };
  await visit(json, root, [root]);
  return { file: root, files };
}
