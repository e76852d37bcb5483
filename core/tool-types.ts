/**
 * The tool types a stock perflow worker offers (activities/tools/builtin.ts registers them).
 * Agent files are validated against this list; a worker with extra tools passes its own list.
 */
export const BUILTIN_TOOL_TYPES = ['CalculatorTool', 'ListCollectionsTool', 'CollectionSchemaTool', 'SearchCollectionTool'] as const;

export type BuiltinToolType = (typeof BUILTIN_TOOL_TYPES)[number];
