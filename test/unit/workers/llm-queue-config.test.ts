import { describeWorkerConfig, llmQueueConfigFromEnv, workerConfigFromEnv } from '../../../config/env';

describe('the LLM task queue from the environment', () => {
  it('is off without PERFLOW_LLM_TASK_QUEUE', () => {
    expect(llmQueueConfigFromEnv({})).toBeUndefined();
  });

  it('takes the queue, the fleet-wide rate and the per-worker concurrency', () => {
    expect(llmQueueConfigFromEnv({ PERFLOW_LLM_TASK_QUEUE: 'perflow-llm', PERFLOW_LLM_RATE_LIMIT: '2.5', PERFLOW_LLM_CONCURRENCY: '4' })).toEqual({
      taskQueue: 'perflow-llm',
      ratePerSecond: 2.5,
      concurrency: 4,
    });
    const config = workerConfigFromEnv({ PERFLOW_LLM_TASK_QUEUE: 'perflow-llm', PERFLOW_LLM_RATE_LIMIT: '3' });
    expect(describeWorkerConfig(config)).toContain('LLM calls on task queue perflow-llm at most 3/s fleet-wide');
  });

  it('rejects bad values in one line naming the variable', () => {
    expect(() => llmQueueConfigFromEnv({ PERFLOW_LLM_TASK_QUEUE: 'q', PERFLOW_LLM_RATE_LIMIT: 'fast' })).toThrow('PERFLOW_LLM_RATE_LIMIT="fast" must be a positive number');
    expect(() => llmQueueConfigFromEnv({ PERFLOW_LLM_TASK_QUEUE: 'q', PERFLOW_LLM_CONCURRENCY: '1.5' })).toThrow('PERFLOW_LLM_CONCURRENCY="1.5" must be a positive integer');
    expect(() => llmQueueConfigFromEnv({ PERFLOW_LLM_RATE_LIMIT: '3' })).toThrow('need PERFLOW_LLM_TASK_QUEUE');
  });
});
