import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { AgentDefinitionError } from '../../../core/agent';
import { describeError, ERROR_KINDS, PerflowError, type ErrorKind } from '../../../client/errors';
import { HttpError, httpAnswerOf } from '../../../client/http-error';
import { LIST_STATUSES, listQuery, parseListStatus } from '../../../client/ops';

describe('error kinds', () => {
  it('map each kind to one exit code (bad input, not found, refused: 2; else 1) and one HTTP status', () => {
    const mapped = Object.fromEntries(Object.entries(ERROR_KINDS).map(([kind, { exitCode, httpStatus }]) => [kind, [exitCode, httpStatus]]));
    expect(mapped).toEqual({
      invalid: [2, 400],
      not_found: [2, 404],
      refused: [2, 403],
      conflict: [1, 409],
      unavailable: [1, 503],
      failed: [1, 500],
    });
  });

  it.each(Object.keys(ERROR_KINDS) as ErrorKind[])('give a PerflowError of kind %s its exit code and HTTP status', (kind) => {
    const err = new PerflowError(kind, 'what to fix\nsecond line');
    expect(describeError(err)).toEqual({ message: 'what to fix second line', kind, exitCode: ERROR_KINDS[kind].exitCode });
    expect(httpAnswerOf(err)).toEqual({ status: ERROR_KINDS[kind].httpStatus, message: 'what to fix second line' });
  });

  it('name the kind of the errors perflow meets from elsewhere', () => {
    expect(describeError(new AgentDefinitionError([{ path: 'llm', message: 'required' }]))).toMatchObject({ kind: 'invalid', exitCode: 2 });
    expect(describeError(new WorkflowNotFoundError('gone', 'wf-1', undefined), { namespace: 'ns' })).toEqual({
      message: 'no workflow "wf-1" in namespace ns: check the workflow ID (perflow list)',
      kind: 'not_found',
      exitCode: 2,
    });
    const failed = new WorkflowFailedError('Workflow execution failed', new Error('the model refused'), RetryState.NON_RETRYABLE_FAILURE);
    expect(describeError(failed)).toEqual({ message: 'run failed: the model refused', kind: 'failed', exitCode: 1 });
    expect(describeError(new Error('boom'))).toEqual({ message: 'boom', kind: 'failed', exitCode: 1 });
    expect(httpAnswerOf(new Error('boom'))).toEqual({ status: 500, message: 'boom' });
  });

  it('keep the status of a refusal only HTTP has', () => {
    expect(httpAnswerOf(new HttpError(429, 'too many streams'))).toEqual({ status: 429, message: 'too many streams' });
  });
});

describe('list statuses', () => {
  it('take the statuses runs are listed by, and name the value to fix otherwise', () => {
    expect(LIST_STATUSES).toEqual(['running', 'completed', 'tripped', 'failed']);
    expect(listQuery('tripped')).toContain("PerflowStatus = 'tripped'");
    expect(listQuery('completed')).toContain("ExecutionStatus = 'Completed'");
    expect(parseListStatus(undefined, '--status')).toBeUndefined();
    expect(parseListStatus('failed', '--status')).toBe('failed');
    expect(() => parseListStatus('sleeping', 'status')).toThrow(expect.objectContaining({ kind: 'invalid', message: 'status must be running, completed, tripped or failed, got "sleeping"' }));
  });
});
