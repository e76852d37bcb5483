/** A tool: a name, a thorough description, a zod input schema and a handler. */
import { z } from 'zod';
import type { ToolSpec } from '../../core/llm-types';

export interface Tool<Input = unknown> {
  /** The tool type an agent file names, e.g. `CalculatorTool`. */
  type: string;
  description: string;
  input: z.ZodType<Input>;
  run(input: Input, parameters: Record<string, unknown>): Promise<string>;
}

export type ToolRegistry = ReadonlyMap<string, Tool<never>>;

export function toolRegistry(tools: Tool<never>[]): ToolRegistry {
  return new Map(tools.map((t) => [t.type, t]));
}

export function toolSpec(tool: Tool<never>, name = tool.type, description = tool.description): ToolSpec {
  const schema = z.toJSONSchema(tool.input as z.ZodType, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return { name, description, input_schema: schema };
}
