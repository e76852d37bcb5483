/** Errors meant for people: one line naming what to fix, and an exit code. */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { AgentDefinitionError } from '../core/agent';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

const oneLine = (s: string): string => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/** The innermost cause's message of a workflow failure. */
export function failureMessage(err: unknown): string {
  let e: unknown = err;
  const parts: string[] = [];
  while (e instanceof Error) {
    if (e.message) parts.push(e.message);
    e = (e as { cause?: unknown }).cause;
  }
  return oneLine(parts.length > 1 ? parts.slice(1).join(': ') : (parts[0] ?? String(err)));
}

/** One line and an exit code for any error the CLI may meet. */
function isNotFound(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === 5) return true; // gRPC NOT_FOUND
  }
  return false;
}

export function describeError(
  err: unknown,
  ctx: { temporalAddress?: string; namespace?: string; workflowId?: string } = {},
): { message: string; exitCode: number } {
  if (err instanceof CliError) return { message: oneLine(err.message), exitCode: err.exitCode };
  if (err instanceof AgentDefinitionError) return { message: oneLine(err.message), exitCode: 2 };
  if (err instanceof WorkflowNotFoundError || (ctx.workflowId !== undefined && isNotFound(err))) {
    const wid = err instanceof WorkflowNotFoundError && err.workflowId ? err.workflowId : ctx.workflowId;
    const id = wid ? `"${wid}" ` : '';
    return { message: `no workflow ${id}in namespace ${ctx.namespace ?? 'default'}: check the workflow ID (perflow list)`, exitCode: 1 };
  }
  if (err instanceof WorkflowFailedError) return { message: `run failed: ${failureMessage(err)}`, exitCode: 1 };
  const msg = err instanceof Error ? err.message : String(err);
  return { message: oneLine(msg), exitCode: 1 };
}
