/**
 * Instructions of an agent file by phase (Axon Ivy `instructions[]`). Schema-free, so workflow
 * code reads them without the agent file's schemas (see llm-interfaces.ts).
 */

/** The phases an instruction can be for. */
export const INSTRUCTION_TYPES = ['planning', 'execution'] as const;
export type InstructionType = (typeof INSTRUCTION_TYPES)[number];

/** The contents of an agent's instructions of one type, in file order. */
export function instructionsOf(agent: { instructions?: { type: InstructionType; content: string }[] }, type: InstructionType): string[] {
  return (agent.instructions ?? []).filter((i) => i.type === type).map((i) => i.content);
}
