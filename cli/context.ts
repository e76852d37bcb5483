/** What every command handler gets: its options, the client configuration, and a connection on demand. */
import type { ClientConfig } from '../config/env';
import type { PerflowClient } from '../client/connect';
import { PerflowError } from '../client/errors';
import { openStores, type StoresClient } from '../client/stores';
import { missingId } from './usage';
import type { Options } from './options';

export interface CommandContext {
  command: string;
  o: Options;
  positionals: string[];
  config: ClientConfig;
  /** The environment, for the commands that start servers of their own (worker, console, codec-server). */
  env: NodeJS.ProcessEnv;
  /** The workflow ID the command is about, named in its error messages (see {@link aboutRun}). */
  workflowId?: string;
}

/** A command: its exit code, or a thrown error (one line, see `describeError`). */
export type CommandHandler = (ctx: CommandContext) => Promise<number>;

/** The command's run (or, as `what` says, memory): its first positional argument, or a one-line usage error. */
export function requireId(ctx: CommandContext, what = 'a workflow ID'): string {
  const id = ctx.positionals[0];
  if (!id) throw new PerflowError('invalid', missingId(ctx.command, what));
  return aboutRun(ctx, id);
}

/** Remembers the run a command is about, so "not found" errors name it. */
export function aboutRun(ctx: CommandContext, workflowId: string): string {
  ctx.workflowId = workflowId;
  return workflowId;
}

/** MongoDB's stores for the duration of `fn`, without connecting to Temporal (commands that read memory, evals or spend). */
export async function withStores<T>(ctx: CommandContext, fn: (stores: StoresClient) => Promise<T>): Promise<T> {
  const stores = openStores(ctx.config);
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

/**
 * Connects to Temporal for the duration of `fn` (and to MongoDB when `fn` first needs it). The
 * Temporal client loads here, so commands that read MongoDB only (`memory`, `budget show`) never load it.
 */
export async function withClient<T>(ctx: CommandContext, fn: (c: PerflowClient) => Promise<T>): Promise<T> {
  const { connectClient } = await import('../client/connect');
  const c = await connectClient(ctx.config);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}
