/**
 * Read-only guards for the MongoDB tools: a walker that finds write or server-side-JavaScript
 * operators anywhere in a filter, projection, sort or pipeline, and a walker that finds the
 * collections (and databases) a pipeline reads through $lookup, $graphLookup and $unionWith.
 */

/**
 * Operators the MongoDB tools never send: `$out` and `$merge` write, `$where`, `$function` and
 * `$accumulator` run JavaScript on the server.
 */
export const FORBIDDEN_OPERATORS = ['$out', '$merge', '$where', '$function', '$accumulator'] as const;

export type ForbiddenOperator = (typeof FORBIDDEN_OPERATORS)[number];

export interface ForbiddenUse {
  operator: ForbiddenOperator;
  /** Where it is, e.g. `pipeline[2].$facet.byCarrier[0]`. */
  path: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The first forbidden operator used as a key anywhere in `value` (objects and arrays are walked
 * to any depth), or undefined. Strings are values, not operators: `"$out"` as a field value or
 * field path is allowed.
 */
export function findForbiddenOperator(value: unknown, path = ''): ForbiddenUse | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findForbiddenOperator(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key;
    if ((FORBIDDEN_OPERATORS as readonly string[]).includes(key)) return { operator: key as ForbiddenOperator, path: here };
    const found = findForbiddenOperator(child, here);
    if (found) return found;
  }
  return undefined;
}

/** Throws an Error naming the forbidden operator and where it is, if `value` uses one. */
export function assertReadOnly(value: unknown, path = ''): void {
  const found = findForbiddenOperator(value, path);
  if (!found) return;
  const why = found.operator === '$out' || found.operator === '$merge' ? 'it writes to a collection' : 'it runs JavaScript on the server';
  throw new Error(
    `forbidden operator ${found.operator} at ${found.path}: this tool is read-only and does not allow ${FORBIDDEN_OPERATORS.join(', ')} (${found.operator}: ${why})`,
  );
}

export interface CollectionRef {
  collection: string;
  /** Set when the stage names another database (`from: { db, coll }`). */
  database?: string;
  stage: '$lookup' | '$graphLookup' | '$unionWith';
}

/** Every collection a pipeline reads besides its own: `$lookup`/`$graphLookup` `from`, `$unionWith`, at any depth. */
export function referencedCollections(value: unknown): CollectionRef[] {
  const refs: CollectionRef[] = [];
  const fromRef = (stage: CollectionRef['stage'], from: unknown) => {
    if (typeof from === 'string') refs.push({ collection: from, stage });
    else if (isPlainObject(from) && typeof from.coll === 'string') {
      refs.push({ collection: from.coll, stage, ...(typeof from.db === 'string' ? { database: from.db } : {}) });
    }
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (!isPlainObject(node)) return;
    for (const [key, child] of Object.entries(node)) {
      if ((key === '$lookup' || key === '$graphLookup') && isPlainObject(child)) fromRef(key, child.from);
      if (key === '$unionWith') fromRef(key, child);
      walk(child);
    }
  };
  walk(value);
  return refs;
}
