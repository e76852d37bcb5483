/**
 * Checks a tool input against the tool's JSON Schema: the parts that decide whether a call can
 * run — an object, its required properties, each property's type and enum, nested objects and
 * array items. Pure and synchronous, so a workflow's update validator can use it.
 */

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    default:
      return true;
  }
}

/** The first way `value` breaks `schema`, as `path: problem`; undefined when it fits. */
export function schemaProblem(schema: unknown, value: unknown, path = 'input'): string | undefined {
  if (!isObject(schema)) return undefined;
  const s = schema as Schema;
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.length > 0 && !types.some((t) => typeMatches(t, value))) return `${path}: expected ${types.join(' or ')}, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`;
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return `${path}: expected one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  if (isObject(value)) {
    for (const key of Array.isArray(s.required) ? (s.required as string[]) : []) {
      if (!(key in value)) return `${path}.${key}: is required`;
    }
    const props = isObject(s.properties) ? s.properties : {};
    for (const [key, v] of Object.entries(value)) {
      if (key in props) {
        const problem = schemaProblem(props[key], v, `${path}.${key}`);
        if (problem) return problem;
      } else if (s.additionalProperties === false) return `${path}.${key}: is not a property of this tool's input`;
    }
  }
  if (Array.isArray(value) && isObject(s.items)) {
    for (const [i, v] of value.entries()) {
      const problem = schemaProblem(s.items, v, `${path}[${i}]`);
      if (problem) return problem;
    }
  }
  return undefined;
}
