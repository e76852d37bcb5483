import { parseOnBusy, queueTail, type BusyRun } from '../../../client/busy-memory';

const run = (workflow_id: string, minute: number, after: string[] = []): BusyRun => ({ workflow_id, started: new Date(Date.UTC(2026, 0, 1, 0, minute)), after });

describe('a busy conversation', () => {
  it('queues a new message behind the run no other run waits for', () => {
    // a runs; b waits for a; c waits for b: the next message waits for c.
    expect(queueTail([run('a', 1), run('b', 2, ['a']), run('c', 3, ['b'])])?.workflow_id).toBe('c');
    // a run that continued-as-new after b was queued started later, but b still waits for it.
    expect(queueTail([run('b', 2, ['a']), run('a', 5)])?.workflow_id).toBe('b');
    expect(queueTail([run('a', 1)])?.workflow_id).toBe('a');
    expect(queueTail([])).toBeUndefined();
  });

  it('takes reject, enqueue or interrupt and names anything else', () => {
    expect(parseOnBusy(undefined, '--on-busy')).toBeUndefined();
    expect(parseOnBusy('enqueue', '--on-busy')).toBe('enqueue');
    expect(() => parseOnBusy('later', '--on-busy')).toThrow('--on-busy must be reject, enqueue or interrupt, got "later"');
  });
});
