/**
 * perflow's workflow-side counters (runs by end status, executed steps), through the workflow
 * metric meter: the worker forwards them to the Temporal runtime's meter, and the SDK skips them
 * while replaying, so a run is counted once however often its history is replayed.
 * The rest of perflow's telemetry, the metric names included, is in telemetry/; these stay with
 * the workflow code because they run in the workflow sandbox.
 */
import { metricMeter } from '@temporalio/workflow';
import { PERFLOW_METRICS } from '../../telemetry/metric-names';

/** A run ended (continue-as-new is not an end). */
export function countRun(agentType: string, status: 'completed' | 'failed' | 'cancelled' | 'tripped'): void {
  metricMeter.createCounter(PERFLOW_METRICS.runs, 'runs', 'Runs that ended, by agent type and status').add(1, { agent_type: agentType, status });
}

/** A step (iteration, todo) was executed, successfully or not. */
export function countStep(agentType: string): void {
  metricMeter.createCounter(PERFLOW_METRICS.steps, 'steps', 'Executed steps, by agent type').add(1, { agent_type: agentType });
}
