/**
 * perflow's agents as a Temporal Nexus service: a worker serves the agent files of a folder its
 * operator names (`perflow worker --nexus-agents DIR`), and a `NexusAgentTool` of an agent in
 * another namespace calls one through a Nexus endpoint. The contract both sides share. Pure
 * module (workflow code imports it).
 *
 * @module
 */
import * as nexus from 'nexus-rpc';
import type { Usage } from './llm-types';

/** An agent tool whose agent runs behind a Nexus endpoint (another namespace, another worker). */
export const NEXUS_AGENT_TOOL_TYPE = 'NexusAgentTool';

/** The service's name, as endpoints' callers name it. */
export const NEXUS_AGENTS_SERVICE = 'perflow-agents';

/** A call of a served agent. */
export interface NexusAgentInput {
  /** The agent's file name in the serving worker's folder, without `.json`. */
  agent: string;
  question: string;
  /** Continue that conversation of the agent (its memory in the serving namespace). */
  memory_id?: string;
  /** The run's workflow ID in the serving namespace (the caller chooses it: a retried start finds its run). */
  workflow_id: string;
  /** The caller's tenant: the run is that tenant's there too. */
  tenant_id?: string;
  /** What the caller may still spend (US dollars): the run's `max_cost_usd`, at most its own. */
  max_cost_usd?: number;
}

/** What a served agent's run answers. */
export interface NexusAgentOutput {
  response: string;
  usage: Usage;
  memory_id: string;
}

export const perflowAgentsService = nexus.service(NEXUS_AGENTS_SERVICE, {
  runAgent: nexus.operation<NexusAgentInput, NexusAgentOutput>(),
});

/** An agent file name a served folder may hold: letters, digits, `_` and `-` (no path). */
export const SERVED_AGENT_NAME = /^[A-Za-z0-9_-]{1,100}$/;
