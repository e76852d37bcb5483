/** Errors meant for people: one line naming what to fix, and a kind that says what happened. */
import type { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { AgentDefinitionError } from '../core/agent-file/errors';
import { causeChain, oneLine } from '../core/text';
import { redactUrls } from '../config/redact';

/**
 * What went wrong, as a caller acts on it; each kind's exit code (the CLI) and HTTP status (the
 * console, the codec server). The only place either is decided.
 */
export const ERROR_KINDS = {
  /** The input is wrong (an option, a file's content, a request body): fix it and try again. */
  invalid: { exitCode: 2, httpStatus: 400 },
  /** What the input names (a run, an eval, a memory_id, a file, a tenant's budget) does not exist. */
  not_found: { exitCode: 2, httpStatus: 404 },
  /** Understood but not allowed here (the workers' policy, another tenant's memory, a listener without a token). */
  refused: { exitCode: 2, httpStatus: 403 },
  /** What it names exists, but its state does not allow this now (a decision not awaited, a run that ended, an ID taken). */
  conflict: { exitCode: 1, httpStatus: 409 },
  /** A service perflow needs (Temporal, MongoDB, a port) cannot be reached or is not set up for this. */
  unavailable: { exitCode: 1, httpStatus: 503 },
  /** It was tried and failed: a run failed, a file could not be written, anything unforeseen. */
  failed: { exitCode: 1, httpStatus: 500 },
} as const satisfies Record<string, { exitCode: number; httpStatus: number }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** perflow's error for people: a one-line message naming what to fix, and its {@link ErrorKind}. */
export class PerflowError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PerflowError';
  }
}

/** The innermost cause's message of a workflow failure. */
export function failureMessage(err: unknown): string {
  const parts = causeChain(err).flatMap((e) => (e.message ? [e.message] : []));
  return oneLine(parts.length > 1 ? parts.slice(1).join(': ') : (parts[0] ?? String(err)));
}

/** Whether an error says the workflow does not exist (the client's error, or gRPC NOT_FOUND). */
export function isNotFound(err: unknown): boolean {
  return isTemporalError<WorkflowNotFoundError>(err, 'WorkflowNotFoundError') || causeChain(err).some((e) => e.code === 5); // gRPC NOT_FOUND
}

/** Where an error was met: names its message may use. */
export interface ErrorContext {
  temporalAddress?: string;
  namespace?: string;
  /** The workflow the command or request is about: a gRPC NOT_FOUND means this one. */
  workflowId?: string;
}

/** One line, the kind and its exit code for any error the CLI or the console may meet. */
export function describeError(err: unknown, ctx: ErrorContext = {}): { message: string; kind: ErrorKind; exitCode: number } {
  const { message, kind } = describeErrorAsIs(err, ctx);
  // A URL in a message (a connection string, an endpoint) is shown without its secrets.
  return { message: redactUrls(message), kind, exitCode: ERROR_KINDS[kind].exitCode };
}

function describeErrorAsIs(err: unknown, ctx: ErrorContext): { message: string; kind: ErrorKind } {
  if (err instanceof PerflowError) return { message: oneLine(err.message), kind: err.kind };
  if (err instanceof AgentDefinitionError) return { message: oneLine(err.message), kind: 'invalid' };
  const notFound = isTemporalError<WorkflowNotFoundError>(err, 'WorkflowNotFoundError');
  if (notFound || (ctx.workflowId !== undefined && isNotFound(err))) {
    const wid = notFound && err.workflowId ? err.workflowId : ctx.workflowId;
    const id = wid ? `"${wid}" ` : '';
    return { message: `no workflow ${id}in namespace ${ctx.namespace ?? 'default'}: check the workflow ID (perflow list)`, kind: 'not_found' };
  }
  if (isTemporalError<WorkflowFailedError>(err, 'WorkflowFailedError')) return { message: `run failed: ${failureMessage(err)}`, kind: 'failed' };
  const msg = err instanceof Error ? err.message : String(err);
  return { message: oneLine(msg), kind: 'failed' };
}

/**
 * Whether `err` is the Temporal client's error of that class, by the marker its `instanceof`
 * checks (`@temporalio/common` SymbolBasedInstanceOfError): the same answer without loading the
 * Temporal client, so a command that never connects (`--help`, a usage error) starts fast.
 */
function isTemporalError<E extends Error>(err: unknown, className: 'WorkflowNotFoundError' | 'WorkflowFailedError'): err is E {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[Symbol.for(`__temporal_is${className}`)] === true;
}
