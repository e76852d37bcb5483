/**
 * Which agent types use a parameter or agent-file field: one that does nothing for the agent's
 * type is refused before a run starts, as is a field the type requires left unset; an unknown
 * parameter gets a warning naming the closest known one (unknown parameters are kept: prompts
 * may use them as `${parameters.x}`).
 */
import type { AgentDefinitionIssue } from '../issues';
import type { AgentTypeField } from './agent-types';
import { knownAgentType, typesUsingField, typesUsingParameter } from './known-agent-types';

const usedBy = (types: readonly string[]) => (types.length <= 2 ? types.join(' and ') : `${types.slice(0, -1).join(', ')} and ${types.at(-1)}`);

/** The given parameters (the agent file's and the run's, not defaults) that the agent's type does not use (its spec's `parameters`). */
export function unusedParameters(type: string, given: Record<string, unknown>): AgentDefinitionIssue[] {
  return Object.keys(given).flatMap((key) => {
    const users = given[key] === undefined ? undefined : typesUsingParameter(key);
    return users && !users.includes(type) ? [{ path: `parameters.${key}`, message: `does nothing for a ${type} agent (it is for ${usedBy(users)}); remove it` }] : [];
  });
}

interface TypedFields {
  type: string;
  goal?: string;
  instructions?: readonly unknown[];
}

/**
 * Which of the type-specific fields an agent file sets: an empty list of instructions is no
 * setting, nor is a blank goal when `filled` (a required goal must say something).
 */
const fieldsSet = (agent: TypedFields, filled = false): Record<AgentTypeField, boolean> => ({
  goal: agent.goal !== undefined && (!filled || agent.goal.trim() !== ''),
  instructions: (agent.instructions ?? []).length > 0,
});

/** The agent-file fields set that the agent's type does not use. */
export function unusedFields(agent: TypedFields): AgentDefinitionIssue[] {
  const set = fieldsSet(agent);
  return (Object.keys(set) as AgentTypeField[]).flatMap((field) => {
    const users = typesUsingField(field);
    return set[field] && !users.includes(agent.type) ? [{ path: field, message: `does nothing for a ${agent.type} agent (it is for ${usedBy(users)}); remove it` }] : [];
  });
}

/** The fields the agent's type requires (its spec's `requires`) that the agent file leaves unset. */
export function missingFields(agent: TypedFields): AgentDefinitionIssue[] {
  const set = fieldsSet(agent, true);
  return (knownAgentType(agent.type)?.requires ?? []).flatMap((field) => (set[field] ? [] : [{ path: field, message: `is required for a ${agent.type} agent` }]));
}

/**
 * Warnings for parameters perflow does not know, each naming the closest known one when there
 * is one, unless a prompt of the agent uses the parameter (`${parameters.<name>}`).
 */
export function unknownParameterWarnings(given: Record<string, unknown>, known: readonly string[], texts: readonly string[]): string[] {
  return Object.keys(given)
    .filter((key) => !known.includes(key) && !texts.some((t) => t.includes(`\${parameters.${key}}`)))
    .map((key) => {
      const near = closest(key, known);
      return `parameters.${key} is not a perflow parameter${near ? ` (did you mean ${near}?)` : ''}; it is kept for prompts that use \${parameters.${key}}`;
    });
}

/** The known name nearest to `name` within a third of its length in edits, if any. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= Math.max(2, Math.floor(name.length / 3)) && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
