/**
 * The table of commands: each name, where its handler lives (one module per group of commands
 * that load the same libraries, under commands/) and what its command line must hold. A
 * handler's module loads only when its command runs, and only once the line holds what the
 * table says, so `--help`, a usage error or a quick command does not load the client library,
 * MongoDB and the Temporal client first.
 */
import type { CommandHandler } from './context';
import type { Options } from './options';
import { missingId } from './usage';

type Group = Record<string, unknown>;
/** What a command line must hold, checked before the handler's module loads: the run (or memory) it names, options it cannot go without. */
interface Needs {
  /** The first argument, as the error names it ("a workflow ID"). */
  readonly id?: string;
  /** Options that must be given, with the line that says so. */
  readonly options?: readonly (readonly [option: keyof Options, line: string])[];
}
const RUN_ID: Needs = { id: 'a workflow ID' };
/** Each command: the module of its group, the handler's export name there, what its line needs. */
const COMMANDS: Readonly<Record<string, readonly [() => Promise<Group>, string, Needs?]>> = {
  worker: [() => import('./commands/worker'), 'worker'],
  run: [() => import('./commands/run'), 'run', { options: [['agent', 'run needs --agent FILE']] }],
  status: [() => import('./commands/runs'), 'status', RUN_ID],
  watch: [() => import('./commands/runs'), 'watch', RUN_ID],
  result: [() => import('./commands/runs'), 'result', RUN_ID],
  list: [() => import('./commands/runs'), 'list'],
  cancel: [() => import('./commands/runs'), 'cancel', RUN_ID],
  memory: [() => import('./commands/memory'), 'memory', { id: 'a memory ID' }],
  history: [() => import('./commands/history'), 'history', { ...RUN_ID, options: [['out', 'history needs --out FILE']] }],
  replay: [() => import('./commands/history'), 'replay'],
  reset: [() => import('./commands/history'), 'reset', RUN_ID],
  fork: [() => import('./commands/fork'), 'fork', { ...RUN_ID, options: [['from-step', 'fork needs --from-step N']] }],
  diff: [() => import('./commands/diff'), 'diff'],
  pending: [() => import('./commands/decisions'), 'pending'],
  approve: [() => import('./commands/decisions'), 'approve', RUN_ID],
  reject: [() => import('./commands/decisions'), 'reject', RUN_ID],
  'approve-tool': [() => import('./commands/decisions'), 'approveTool', RUN_ID],
  'deny-tool': [() => import('./commands/decisions'), 'denyTool', RUN_ID],
  guide: [() => import('./commands/decisions'), 'guide', RUN_ID],
  pause: [() => import('./commands/decisions'), 'pause', RUN_ID],
  resume: [() => import('./commands/decisions'), 'resume', RUN_ID],
  'raise-budget': [() => import('./commands/decisions'), 'raiseBudget', RUN_ID],
  budget: [() => import('./commands/budget'), 'budget'],
  'codec-server': [() => import('./commands/codec-server'), 'codecServer'],
  console: [() => import('./commands/console'), 'consoleCommand'],
  mcp: [() => import('./commands/mcp'), 'mcpCommand'],
  a2a: [() => import('./commands/a2a'), 'a2aCommand'],
  eval: [() => import('./commands/eval'), 'evalCommand'],
  scores: [() => import('./commands/scores'), 'scores'],
  schedule: [() => import('./commands/schedule'), 'schedule'],
};

/** Every command's name, in the table's order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** Whether there is a command of this name. */
export function isCommand(name: string): boolean {
  return Object.hasOwn(COMMANDS, name);
}

/** What the command line lacks that the command needs (one line), before anything loads. */
export function usageProblem(name: string, o: Options, positionals: readonly string[]): string | undefined {
  const needs = COMMANDS[name]?.[2];
  if (needs?.id !== undefined && !positionals[0]) return missingId(name, needs.id);
  return needs?.options?.find(([option]) => o[option] === undefined)?.[1];
}

/** The handler of a command name (its module loaded now), if there is such a command. */
export async function commandNamed(name: string): Promise<CommandHandler | undefined> {
  if (!isCommand(name)) return undefined;
  const [load, exported] = COMMANDS[name];
  const handler = (await load())[exported];
  if (typeof handler !== 'function') throw new Error(`command ${name}: ${exported} is not exported by its module`);
  return handler as CommandHandler;
}
