/**
 * The model interfaces this process knows: the built-in ones and those it adds — a worker's own
 * model adapters (their specs, added when the worker builds its adapters), or the names a client
 * is told its workers serve. Agent-file validation, prices and Axon Ivy model names look
 * interfaces up here. Workflow code does not: it sees the built-in specs only
 * (llm-interfaces.ts), so what it does stays the same whichever process replays it.
 */
import { BUILTIN_MODEL_INTERFACES, builtinInterface, normalizeInterface, type ModelInterfaceSpec } from './llm-interfaces';

const added = new Map<string, ModelInterfaceSpec>();

/**
 * Adds interfaces to those this process knows; one added again replaces the earlier one. A bare
 * name is an interface known by name only (no aliases, no price-table provider).
 *
 * @throws Error naming an interface that is built in, or a name that is not lower case without surrounding spaces (agent files are matched so)
 */
export function addModelInterfaces(interfaces: readonly (ModelInterfaceSpec | string)[]): void {
  for (const entry of interfaces) {
    const spec = typeof entry === 'string' ? { name: entry } : entry;
    if (builtinInterface(spec.name)) throw new Error(`model interface "${spec.name}" is built in: give an added adapter a name of its own`);
    if (spec.name === '' || spec.name !== spec.name.trim().toLowerCase()) {
      throw new Error(`model interface name "${spec.name}" must be lower case, without surrounding spaces`);
    }
    added.set(spec.name, spec);
  }
}

/** Every interface this process knows: the built-in ones first, then the added ones. */
export const knownInterfaces = (): ModelInterfaceSpec[] => [...BUILTIN_MODEL_INTERFACES, ...added.values()];

/** The spec of an interface name (canonical), if this process knows it. */
export const knownInterface = (name: string): ModelInterfaceSpec | undefined => builtinInterface(name) ?? added.get(name);

/** An interface name as written, matched ignoring case and surrounding spaces and the aliases of every interface this process knows. */
export const canonicalInterface = (v: unknown): unknown => normalizeInterface(v, knownInterfaces());
