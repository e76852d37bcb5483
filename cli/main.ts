/**
 * The `perflow` command line (bin/perflow.js runs {@link main}): a thin shell over the client
 * library. With `--json` a command prints exactly one JSON document on stdout; everything else
 * (progress, notes) goes to stderr. Heavy modules (the worker, replay) load only for the
 * commands that need them, so the CLI starts fast.
 */
import { clientConfigFromEnv, type ClientConfig } from '../config/env';
import { addModelInterfaces } from '../core/agent-file/known-interfaces';
import { addAgentTypes } from '../core/agent-file/known-agent-types';
import type { AgentTypeSpec } from '../core/agent-file/agent-types';
import { describeError, PerflowError } from '../client/errors';
import { commandNamed, isCommand } from './commands';
import type { CommandContext, CommandHandler } from './context';
import { parseCommandLine } from './options';
import { note, out } from './output';
import { commandUsage, USAGE } from './usage';

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let config: ClientConfig;
  try {
    config = clientConfigFromEnv(env);
    addExtraModelInterfaces(config.extraModelInterfaces);
    addExtraAgentTypes(config.extraAgentTypes);
  } catch (err) {
    // A malformed setting (e.g. PERFLOW_ENCRYPTION_KEYS): one line, before anything runs.
    process.stderr.write(`perflow: ${describeError(err).message}\n`);
    return 2;
  }
  let verbose = argv.includes('--verbose');
  let ctx: CommandContext | undefined;
  try {
    const [command, ...rest] = argv;
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      out(USAGE);
      return command ? 0 : 2;
    }
    const { values: o, positionals } = parseCommandLine(rest);
    verbose = o.verbose ?? false;
    if (!isCommand(command)) throw new PerflowError('invalid', `unknown command "${command}" (perflow --help)`);
    if (o.help) {
      out(commandUsage(command));
      return 0;
    }
    const handler = (await commandNamed(command)) as CommandHandler;
    ctx = { command, o, positionals, config, env };
    return await handler(ctx);
  } catch (err) {
    const { message, exitCode } = describeError(err, { ...config, workflowId: ctx?.workflowId });
    note(`perflow: ${message}`);
    if (verbose && err instanceof Error) process.stderr.write(`${err.stack ?? ''}\n`);
    return exitCode;
  }
}

/** Interfaces the workers serve with adapters of their own (PERFLOW_EXTRA_MODEL_INTERFACES): agent files may name them. */
function addExtraAgentTypes(specs: readonly AgentTypeSpec[]): void {
  try {
    addAgentTypes(specs);
  } catch (err) {
    throw new PerflowError('invalid', `PERFLOW_EXTRA_AGENT_TYPES: ${(err as Error).message}`);
  }
}

function addExtraModelInterfaces(names: readonly string[]): void {
  try {
    addModelInterfaces(names);
  } catch (err) {
    throw new PerflowError('invalid', `PERFLOW_EXTRA_MODEL_INTERFACES: ${(err as Error).message}`);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
