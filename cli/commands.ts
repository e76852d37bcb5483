/**
 * The table of commands: each name and where its handler lives (one module per group under
 * commands/). A handler's module loads only when its command runs, so `--help`, a usage error
 * or a quick command does not load the client library, MongoDB and the Temporal client first.
 */
import type { CommandHandler } from './context';

type Group = Record<string, unknown>;
/** Each command: the module of its group and the handler's export name there. */
const COMMANDS: Readonly<Record<string, readonly [() => Promise<Group>, string]>> = {
  worker: [() => import('./commands/worker'), 'worker'],
  run: [() => import('./commands/runs'), 'run'],
  status: [() => import('./commands/runs'), 'status'],
  watch: [() => import('./commands/runs'), 'watch'],
  result: [() => import('./commands/runs'), 'result'],
  list: [() => import('./commands/runs'), 'list'],
  cancel: [() => import('./commands/runs'), 'cancel'],
  memory: [() => import('./commands/memory'), 'memory'],
  history: [() => import('./commands/history'), 'history'],
  replay: [() => import('./commands/history'), 'replay'],
  reset: [() => import('./commands/history'), 'reset'],
  fork: [() => import('./commands/fork-diff'), 'fork'],
  diff: [() => import('./commands/fork-diff'), 'diff'],
  pending: [() => import('./commands/decisions'), 'pending'],
  approve: [() => import('./commands/decisions'), 'approve'],
  reject: [() => import('./commands/decisions'), 'reject'],
  'approve-tool': [() => import('./commands/decisions'), 'approveTool'],
  'deny-tool': [() => import('./commands/decisions'), 'denyTool'],
  guide: [() => import('./commands/decisions'), 'guide'],
  pause: [() => import('./commands/decisions'), 'pause'],
  resume: [() => import('./commands/decisions'), 'resume'],
  'raise-budget': [() => import('./commands/decisions'), 'raiseBudget'],
  budget: [() => import('./commands/budget'), 'budget'],
  'codec-server': [() => import('./commands/codec-server'), 'codecServer'],
  console: [() => import('./commands/console'), 'consoleCommand'],
  mcp: [() => import('./commands/mcp'), 'mcpCommand'],
  eval: [() => import('./commands/eval'), 'evalCommand'],
};

/** Every command's name, in the table's order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** Whether there is a command of this name. */
export function isCommand(name: string): boolean {
  return Object.hasOwn(COMMANDS, name);
}

/** The handler of a command name (its module loaded now), if there is such a command. */
export async function commandNamed(name: string): Promise<CommandHandler | undefined> {
  if (!isCommand(name)) return undefined;
  const [load, exported] = COMMANDS[name];
  const handler = (await load())[exported];
  if (typeof handler !== 'function') throw new Error(`command ${name}: ${exported} is not exported by its module`);
  return handler as CommandHandler;
}
