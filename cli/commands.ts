/** The table of commands: each name and the handler that runs it (one module per group under commands/). */
import type { CommandHandler } from './context';
import { budget } from './commands/budget';
import { codecServer } from './commands/codec-server';
import { consoleCommand } from './commands/console';
import { approve, approveTool, denyTool, guide, pause, pending, raiseBudget, reject, resume } from './commands/decisions';
import { evalCommand } from './commands/eval';
import { diff, fork } from './commands/fork-diff';
import { history, replay, reset } from './commands/history';
import { memory } from './commands/memory';
import { cancel, list, result, run, status, watch } from './commands/runs';
import { worker } from './commands/worker';

const COMMANDS: Readonly<Record<string, CommandHandler>> = {
  worker,
  run,
  status,
  watch,
  result,
  list,
  cancel,
  memory,
  history,
  replay,
  reset,
  fork,
  diff,
  pending,
  approve,
  reject,
  'approve-tool': approveTool,
  'deny-tool': denyTool,
  guide,
  pause,
  resume,
  'raise-budget': raiseBudget,
  budget,
  'codec-server': codecServer,
  console: consoleCommand,
  eval: evalCommand,
};

/** Every command's name, in the table's order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** The handler of a command name, if there is such a command. */
export function commandNamed(name: string): CommandHandler | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}
