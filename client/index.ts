/**
 * perflow's client library (`perflow/client`): what the CLI does, as functions. This file is
 * the public API; everything not exported here is internal.
 */
export { clientConfigFromEnv, temporalFromEnv, type ClientConfig, type TemporalConnectionSettings } from '../config/env';
export { connectClient, perflowClient, workflowUrl, type PerflowClient } from './connect';
export { openStores, type StoresClient } from './stores';
export { checkEvalScope, checkRunScope, OPERATOR, paramsInScope, type TenantScope } from './tenant-scope';
export { describeError, ERROR_KINDS, failureMessage, PerflowError, type ErrorKind } from './errors';
export { followRun } from './follow-run';
export type { RunEndedPayload, WebhookTarget } from '../core/webhooks';
export { agentFromJson, loadAgentFile, parseParams, startRun, type LoadAgentFileOptions, type LoadedAgent, type StartRunOptions, type StartedRun } from './run';
export { busyRuns, makeRoom, ON_BUSY, parseOnBusy, queueTail, type BusyRun, type OnBusy } from './busy-memory';
export { readSubAgentFiles, type ReadSubAgentOptions, type SubAgentFiles } from './sub-agents';
export { subAgentRuns, type SubAgentRun } from './agent-tree';
export { fingerprintOf, fingerprintDifference, type Fingerprint, type FingerprintParts } from '../core/fingerprint';
export {
  cancelRun,
  fetchHistory,
  getResult,
  getStatus,
  LIST_STATUSES,
  listRuns,
  parseListStatus,
  readHistoryFile,
  resetRun,
  runFingerprint,
  fingerprintFields,
  runSummary,
  writeHistoryFile,
  type ListStatus,
  type ResetTarget,
  type RunResult,
  type RunSummary,
} from './ops';
export { readMemory } from './memory';
export { StreamUnavailableError, watchRun, type WatchOptions } from './watch';
export { AgUiTranslator, type AgUiRun } from './ag-ui';
export { answersOf, RUN_EVENT_TYPES, type RunEvent, type RunEventBody, type RunEventType } from '../core/run-events';
export { forkRun, forkSource, runInputOf, type ForkOptions } from './fork';
export { diffRuns, unifiedDiff, type RunDiff, type RunSide, type StepSide } from './diff';
export { EncryptionCodec, encryptionDataConverter, PayloadDecryptionError } from '../codec/encryption';
export type { EncryptionKeyring } from '../core/encryption-keyring';
export { encryptionKeysFromEnv, parseEncryptionKeys } from '../config/env';
export { startCodecServer, type CodecServer, type CodecServerOptions } from './codec-server';
export { approvePlan, approveTool, denyTool, guideRun, listPending, pauseRun, raiseBudget, readStepsFile, rejectPlan, resumeRun, type DecidedBy, type PendingRun, type RoutedDecision } from './decisions';
export { setTenantBudget, showTenantBudgets, type TenantBudgetSet, type TenantBudgetView } from './tenant-budgets';
export type { ConversationView } from '../stores/conversation';
export { formatConversation, formatDiff, pendingLines, progressChanges } from './text-views';
export { AgentDefinitionError, parseAgentDefinition, resolveParameters, type AgentDefinition, type AgentType } from '../core/agent';
export { addModelInterfaces } from '../core/agent-file/known-interfaces';
export { addAgentTypes } from '../core/agent-file/known-agent-types';
export type { AgentTypeField, AgentTypeSpec } from '../core/agent-file/agent-types';
export type { ModelInterfaceSpec } from '../core/agent-file/llm-interfaces';
export { BUILTIN_TOOL_TYPES } from '../core/tool-types';
export {
  FailureTypes,
  progressQuery,
  WORKFLOW_TYPES,
  type CompletedStepView,
  type DecisionRecord,
  type PendingDecision,
  type PlanStepView,
  type Progress,
  type Replan,
  type RunIds,
  type RunOutput,
  type StepView,
  type TodoView,
} from '../workflows/definitions';
export {
  compareEvalResults,
  evalProgress,
  evalResult,
  evalSnapshot,
  listEvals,
  loadSuite,
  suiteFromJson,
  startEval,
  type EvalComparisonWithDiffs,
  type EvalProgress,
  type EvalSnapshot,
  type EvalWorkflowHandle,
  type LoadedSuite,
  type LoadSuiteOptions,
  type StartEvalOptions,
} from './eval';
export type { CaseComparison, CaseResult, CheckResult, EvalCheck, EvalComparison, EvalResult, EvalSuite } from '../core/eval/types';
export { suiteFromRuns, type FromRunsOptions } from './eval-from-runs';
export {
  backfillSchedule,
  createSchedule,
  deleteSchedule,
  describeSchedule,
  listSchedules,
  OVERLAP_POLICIES,
  pauseSchedule,
  triggerSchedule,
  unpauseSchedule,
  updateSchedule,
  type CreateScheduleOptions,
  type OverlapPolicy,
  type ScheduledRun,
  type ScheduledRunView,
  type ScheduleScope,
  type ScheduleSummaryView,
  type ScheduleView,
  type ScheduleWhen,
  type UpdateScheduleOptions,
} from './schedules';
