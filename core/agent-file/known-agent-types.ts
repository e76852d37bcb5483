/**
 * The agent types this process knows: the built-in ones (agent-types.ts) and those it adds — a
 * type whose workflow lives in a workflows module of one's own (createWorker({ workflows })),
 * named here so agent files of that type validate and runs of it start as its workflow.
 * Agent-file validation, parameter checks and run starts look types up here. Workflow code does
 * not: it sees the built-in specs only, so what it does stays the same whichever process replays it.
 */
import { AGENT_TYPE_SPECS, type AgentTypeField, type AgentTypeSpec } from './agent-types';

const added = new Map<string, AgentTypeSpec>();

/** How agent files spell a type once trimmed and lower-cased (snake_case, as the built-in ones). */
const TYPE_NAME = /^[a-z][a-z0-9_]*$/;
/** A workflow type is the name of the exported workflow function that runs it. */
const WORKFLOW_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Adds agent types to those this process knows; one added again replaces the earlier one. The
 * TypeScript type `AgentType` stays the built-in names: an added type's agent file parses with
 * its own name in `type`, which code of its own compares as a string (`agent.type as string`).
 *
 * @throws Error naming a type that is built in, a type name that is not snake_case, or a workflow type that is no function name or runs a built-in type
 */
export function addAgentTypes(specs: readonly AgentTypeSpec[]): void {
  for (const spec of specs) {
    if (builtinAgentType(spec.type)) throw new Error(`agent type "${spec.type}" is built in: give an added agent type a name of its own`);
    if (!TYPE_NAME.test(spec.type)) throw new Error(`agent type name "${spec.type}" must be lower case letters, digits and "_", starting with a letter`);
    if (!WORKFLOW_NAME.test(spec.workflowType)) throw new Error(`agent type "${spec.type}": workflowType "${spec.workflowType}" must be the name of its workflow function`);
    const runs = AGENT_TYPE_SPECS.find((s) => s.workflowType === spec.workflowType);
    if (runs) throw new Error(`agent type "${spec.type}": workflow type "${spec.workflowType}" runs ${runs.type} agents; give it a workflow of its own`);
    added.set(spec.type, spec);
  }
}

/**
 * An added agent type the CLI and the console learn from PERFLOW_EXTRA_AGENT_TYPES
 * (`TYPE=workflowType`): the parameters and fields every type uses, no type-specific ones, no
 * plan approval, parallel steps or forks. A process of one's own declares more with addAgentTypes.
 */
export function namedAgentType(type: string, workflowType: string): AgentTypeSpec {
  return { type, workflowType, parameters: [], fields: [], planApproval: false, parallelSteps: false, fork: false };
}

/**
 * The agent types of a PERFLOW_EXTRA_AGENT_TYPES value: comma-separated `TYPE=workflowType`.
 *
 * @throws Error naming an entry that is not `TYPE=workflowType`
 */
export function parseNamedAgentTypes(value: string | undefined): AgentTypeSpec[] {
  const entries = (value ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
  return entries.map((entry) => {
    const [type, workflowType, ...rest] = entry.split('=').map((s) => s.trim());
    if (!type || !workflowType || rest.length > 0) throw new Error(`"${entry}" is not TYPE=workflowType (e.g. one_step=oneStep)`);
    return namedAgentType(type.toLowerCase(), workflowType);
  });
}

const builtinAgentType = (type: string): AgentTypeSpec | undefined => AGENT_TYPE_SPECS.find((s) => s.type === type);

/** Every agent type this process knows: the built-in ones first, then the added ones. */
export const knownAgentTypes = (): AgentTypeSpec[] => [...AGENT_TYPE_SPECS, ...added.values()];

/** The spec of an agent type name (trimmed, lower case), if this process knows it. */
export const knownAgentType = (type: string): AgentTypeSpec | undefined => builtinAgentType(type) ?? added.get(type);

/**
 * The spec of an agent type, as a parsed agent file names it.
 *
 * @throws Error when this process does not know the type (a run of a type added elsewhere)
 */
export function agentTypeSpec(type: string): AgentTypeSpec {
  const spec = knownAgentType(type);
  if (!spec) throw new Error(`agent type "${type}" is not known here (${knownAgentTypes().map((s) => s.type).join(', ')}); add it with addAgentTypes`);
  return spec;
}

/** The agent types that use a type-specific parameter, or undefined when every type uses it. */
export function typesUsingParameter(name: string): string[] | undefined {
  const users = knownAgentTypes().filter((s) => s.parameters.includes(name)).map((s) => s.type);
  return users.length > 0 ? users : undefined;
}

/** The agent types that use an agent-file field. */
export function typesUsingField(field: AgentTypeField): string[] {
  return knownAgentTypes().filter((s) => s.fields.includes(field)).map((s) => s.type);
}
