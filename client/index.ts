/** perflow's client library: what the CLI does, as functions. */
export { clientConfigFromEnv, connectClient, workflowUrl, type ClientConfig, type PerflowClient } from './connect';
export { CliError, describeError, failureMessage } from './errors';
export { followRun, loadAgentFile, parseParams, progressChanges, slug, startRun, truncateBytes, type StartRunOptions, type StartedRun } from './run';
export {
  cancelRun,
  fetchHistory,
  getResult,
  getStatus,
  historyJSON,
  parseHistoryJSON,
  listQuery,
  listRuns,
  parseResetTarget,
  readHistoryFile,
  replayHistory,
  resetEventId,
  resetRun,
  writeHistoryFile,
  WORKFLOW_TYPE,
  type ListStatus,
  type ResetTarget,
} from './ops';
