/**
 * Memory activities as workflows call them. A database outage is waited out: retries never
 * stop (capped backoff) except for non-retryable failures such as an unknown memory_id.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { MemoryActivities } from '../activities/memory/activities';

export const memoryActivities = proxyActivities<MemoryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});
