/**
 * What starting a run sends along besides its workflow ID: the run input, the memo, the
 * Temporal UI's summary and details, and perflow's search attributes. One function for the
 * client's `startRun` and the eval workflow's child runs, so a run looks the same however it
 * was started. Pure: safe to import from workflow code.
 */
import type { SearchAttributePair } from '@temporalio/common';
import type { AgentDefinition, ResolvedParameters } from '../../core/agent';
import { denseParameters } from '../../core/agent-file/parameter-defaults';
import { fingerprintOf } from '../../core/fingerprint';
import type { WebhookTarget } from '../../core/webhooks';
import { preview, SearchAttributes, type ForkSource, type RunIds, type RunInput } from './definitions';

export interface RunStartSpec {
  agent: AgentDefinition;
  question: string;
  /** The run's parameters as `sparseParameters` leaves them (without the memory IDs: those are `ids`). */
  sparse: { parameters: Partial<ResolvedParameters>; parameter_defaults?: string };
  /** The run's memory IDs; a scheduled run's are left out (each firing's run generates its own, see `runIdsFor`), or only its conversation's. */
  ids: Partial<RunIds>;
  /** `ids.memory_id` is an existing conversation to continue. */
  continuesConversation?: boolean;
  llmTaskQueue?: string;
  fork?: ForkSource;
  /** perflow's version where the run was asked for (a client's; its root's or eval's for runs started by workflows). */
  version?: string;
  /** Runs of the conversation to wait for before starting (`RunInput.after`). */
  after?: string[];
  /** Where the run's end is announced (`RunInput.webhook`). */
  webhook?: WebhookTarget;
}

export interface RunStart {
  input: RunInput;
  memo: Record<string, unknown>;
  staticSummary: string;
  staticDetails: string;
  searchAttributes: SearchAttributePair[];
}

export function runStart(o: RunStartSpec): RunStart {
  const input: RunInput = { agent: o.agent, question: o.question, ...o.sparse, ids: o.ids };
  if (o.continuesConversation) input.continues_conversation = true;
  if (o.llmTaskQueue) input.llm_task_queue = o.llmTaskQueue;
  if (o.fork) input.fork = o.fork;
  if (o.version !== undefined) input.perflow_version = o.version;
  if (o.after !== undefined && o.after.length > 0) input.after = o.after;
  if (o.webhook) input.webhook = o.webhook;
  const tenant = o.sparse.parameters.tenant_id;
  const fingerprint = fingerprintOf(o.agent, denseParameters(o.sparse), o.version);
  const details = [
    `**Agent:** ${o.agent.name}`,
    ...(o.fork ? ['', `**Forked from** \`${o.fork.workflow_id}\` at step ${o.fork.step}`] : []),
    '',
    `**Question:** ${preview(o.question, 2_000)}`,
    '',
    ...Object.entries(o.ids).map(([k, v]) => `- ${k}: \`${v}\``),
  ].join('\n');
  return {
    input,
    memo: { ...(input.after ? { after: input.after } : {}), agent: o.agent.name, agent_type: o.agent.type, question: preview(o.question, 1_000), ...(tenant !== undefined ? { tenant_id: tenant } : {}), fingerprint: fingerprint.id, fingerprint_parts: fingerprint.parts },
    staticSummary: truncateBytes(o.question.replace(/\s+/g, ' '), 200),
    staticDetails: details,
    searchAttributes: [
      { key: SearchAttributes.agent, value: o.agent.name },
      { key: SearchAttributes.status, value: 'running' },
      { key: SearchAttributes.pending, value: 'none' },
      { key: SearchAttributes.fingerprint, value: fingerprint.id },
      ...(o.ids.memory_id !== undefined ? [{ key: SearchAttributes.memory, value: o.ids.memory_id }] : []),
      ...(tenant !== undefined ? [{ key: SearchAttributes.tenant, value: tenant }] : []),
    ],
  };
}

/** UTF-8 bytes of a character (Buffer is not there in workflow code). */
const utf8Bytes = (ch: string): number => {
  const cp = ch.codePointAt(0) ?? 0;
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
};

/** At most `maxBytes` UTF-8 bytes of `text`, cut on a character boundary with `…` when cut. */
export function truncateBytes(text: string, maxBytes: number): string {
  let total = 0;
  for (const ch of text) total += utf8Bytes(ch);
  if (total <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    if (bytes + utf8Bytes(ch) + 3 > maxBytes) break;
    out += ch;
    bytes += utf8Bytes(ch);
  }
  return `${out}…`;
}
