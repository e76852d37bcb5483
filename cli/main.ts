/**
 * The `perflow` command line (bin/perflow.js runs {@link main}): a thin shell over the client
 * library. With `--json` a command prints exactly one JSON document on stdout; everything else
 * (progress, notes) goes to stderr. Each command loads only what it uses: `--help`, usage and
 * argument errors load no client library, and the settings (zod, the Temporal configuration
 * reader) load once a command is going to run (see docs/cli.md, "What a command loads").
 */
import type { ClientConfig } from '../config/env';
import type { AgentTypeSpec } from '../core/agent-file/agent-types';
import { describeError, PerflowError } from '../client/errors';
import { commandNamed, isCommand, usageProblem } from './commands';
import type { CommandContext, CommandHandler } from './context';
import { parseCommandLine } from './options';
import { note, out } from './output';
import { commandUsage, USAGE } from './usage';

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let verbose = argv.includes('--verbose');
  let config: ClientConfig | undefined;
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
    const problem = usageProblem(command, o, positionals);
    if (problem !== undefined) throw new PerflowError('invalid', problem);
    const settings = await loadSettings(env);
    if (typeof settings === 'number') return settings;
    config = settings;
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

/** The client's settings, with the agent types and model interfaces they add; a malformed setting is one line and exit code 2. */
async function loadSettings(env: NodeJS.ProcessEnv): Promise<ClientConfig | number> {
  try {
    const { clientConfigFromEnv } = await import('../config/env');
    const config = clientConfigFromEnv(env);
    if (config.extraModelInterfaces.length > 0) await addExtraModelInterfaces(config.extraModelInterfaces);
    if (config.extraAgentTypes.length > 0) await addExtraAgentTypes(config.extraAgentTypes);
    return config;
  } catch (err) {
    // A malformed setting (e.g. PERFLOW_ENCRYPTION_KEYS): one line, before anything runs.
    process.stderr.write(`perflow: ${describeError(err).message}\n`);
    return 2;
  }
}

/** Agent types the workers run with modules of their own (PERFLOW_EXTRA_AGENT_TYPES): agent files may name them. */
async function addExtraAgentTypes(specs: readonly AgentTypeSpec[]): Promise<void> {
  const { addAgentTypes } = await import('../core/agent-file/known-agent-types');
  try {
    addAgentTypes(specs);
  } catch (err) {
    throw new PerflowError('invalid', `PERFLOW_EXTRA_AGENT_TYPES: ${(err as Error).message}`);
  }
}

/** Interfaces the workers serve with adapters of their own (PERFLOW_EXTRA_MODEL_INTERFACES): agent files may name them. */
async function addExtraModelInterfaces(names: readonly string[]): Promise<void> {
  const { addModelInterfaces } = await import('../core/agent-file/known-interfaces');
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
