/** Errors meant for people: one line naming what to fix, and an exit code. */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { AgentDefinitionError } from '../core/agent';
import { causeChain, oneLine } from '../core/text';
import { redactUrls } from '../config/redact';

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

/** The innermost cause's message of a workflow failure. */
export function failureMessage(err: unknown): string {
  const parts = causeChain(err).flatMap((e) => (e.message ? [e.message] : []));
  return oneLine(parts.length > 1 ? parts.slice(1).join(': ') : (parts[0] ?? String(err)));
}

/** Whether an error says the workflow does not exist (the client's error, or gRPC NOT_FOUND). */
export function isNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || causeChain(err).some((e) => e.code === 5); // gRPC NOT_FOUND
}

/** One line and an exit code for any error the CLI may meet. */

export function describeError(
  err: unknown,
  ctx: { temporalAddress?: string; namespace?: string; workflowId?: string } = {},
): { message: string; exitCode: number } {
  // A URL in a message (a connection string, an endpoint) is shown without its secrets.
  const { message, exitCode } = describeErrorAsIs(err, ctx);
  return { message: redactUrls(message), exitCode };
}

function describeErrorAsIs(err: unknown, ctx: { temporalAddress?: string; namespace?: string; workflowId?: string }): { message: string; exitCode: number } {
  if (err instanceof CliError) return { message: oneLine(err.message), exitCode: err.exitCode };
  if (err instanceof AgentDefinitionError) return { message: oneLine(err.message), exitCode: 2 };
  if (err instanceof WorkflowNotFoundError || (ctx.workflowId !== undefined && isNotFound(err))) {
    const wid = err instanceof WorkflowNotFoundError && err.workflowId ? err.workflowId : ctx.workflowId;
    const id = wid ? `"${wid}" ` : '';
    return { message: `no workflow ${id}in namespace ${ctx.namespace ?? 'default'}: check the workflow ID (perflow list)`, exitCode: 2 };
  }
  if (err instanceof WorkflowFailedError) return { message: `run failed: ${failureMessage(err)}`, exitCode: 1 };
  const msg = err instanceof Error ? err.message : String(err);
  return { message: oneLine(msg), exitCode: 1 };
}
