/** How perflow's HTTP servers (the console, the codec server) answer an error: a status and one line. */
import { describeError, ERROR_KINDS, type ErrorContext } from './errors';

/** The statuses of the errors perflow's servers answer with. */
export type ErrorStatus = HttpError['status'] | (typeof ERROR_KINDS)[keyof typeof ERROR_KINDS]['httpStatus'];

/**
 * A refusal only HTTP has, whose status no {@link ERROR_KINDS} kind stands for: no token (401),
 * a wrong method (405), a body too large (413), payloads that cannot be decrypted (422), too
 * many streams (429). Everything else is a PerflowError of its kind.
 */
export class HttpError extends Error {
  constructor(
    readonly status: 401 | 405 | 413 | 422 | 429,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The status and one line an error is answered with: an HttpError's own, else its kind's (see describeError). */
export function httpAnswerOf(err: unknown, ctx: ErrorContext = {}): { status: ErrorStatus; message: string } {
  if (err instanceof HttpError) return { status: err.status, message: err.message };
  const { message, kind } = describeError(err, ctx);
  return { status: ERROR_KINDS[kind].httpStatus, message };
}
