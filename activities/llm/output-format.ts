/**
 * A typed answer (`ChatRequest.output`) as the providers' structured-output features take it:
 * OpenAI's `json_schema` format, strict only when the schema meets strict mode's rules, and the
 * schema Claude's structured outputs (Anthropic, Bedrock) can constrain. The prompt states the
 * schema either way and the caller validates the answer, so a schema a provider cannot take is
 * simply not sent to it.
 */
import type { OutputFormat } from '../../core/activity-contract';
import { anthropicSchemaTransform } from './sdks';

type Schema = Record<string, unknown>;

function isSchema(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The keywords of OpenAI's strict mode (its supported subset of JSON Schema). A schema using any
 * other (`$schema`, `default`, `format`, `minLength`, `oneOf`, `allOf` …) is sent non-strict: a
 * schema strict mode refuses fails the call, one it could have taken only loses the guarantee.
 */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'const', 'description', 'title', '$defs', 'definitions', '$ref',
  'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);

/** The nesting strict mode allows. */
const STRICT_MAX_DEPTH = 10;

/** The subschemas directly under `schema` that strict mode reads, as they are (a malformed one is not a schema). */
function strictChildren(schema: Schema): unknown[] {
  const out: unknown[] = [];
  for (const key of ['properties', '$defs', 'definitions']) if (key in schema) out.push(...(isSchema(schema[key]) ? Object.values(schema[key]) : [undefined]));
  if ('items' in schema) out.push(schema.items);
  if ('anyOf' in schema) out.push(...(Array.isArray(schema.anyOf) ? schema.anyOf : [undefined]));
  return out;
}

function isObjectSchema(schema: Schema): boolean {
  return schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || 'properties' in schema;
}

function strictAt(schema: unknown, depth: number): boolean {
  if (!isSchema(schema) || depth > STRICT_MAX_DEPTH) return false;
  if (Object.keys(schema).some((key) => !STRICT_KEYWORDS.has(key))) return false;
  if (isObjectSchema(schema)) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    const properties = isSchema(schema.properties) ? Object.keys(schema.properties) : [];
    if (schema.additionalProperties !== false || properties.some((p) => !required.includes(p))) return false;
  }
  return strictChildren(schema).every((child) => strictAt(child, depth + 1));
}

/**
 * Whether OpenAI's strict mode takes `schema` as it is: an object at the root; every object with
 * `additionalProperties: false` and all its properties required; only strict mode's keywords; at
 * most 10 levels deep.
 */
export function meetsStrictRules(schema: Schema): boolean {
  return schema.type === 'object' && strictAt(schema, 1);
}

/**
 * OpenAI's `json_schema` format (Chat Completions' `json_schema`, the Responses API's `text.format`
 * without `type`); `undefined` when the root is not an object, which OpenAI refuses, strict or not.
 */
export function openAiJsonSchema(output: OutputFormat): { name: string; schema: Schema; strict: boolean } | undefined {
  return output.schema.type === 'object' ? { name: output.name, schema: output.schema, strict: meetsStrictRules(output.schema) } : undefined;
}

/** Every schema in `schema`, itself included (keyword values that are schemas, or lists or maps of schemas). */
function allSchemas(schema: unknown): Schema[] {
  if (Array.isArray(schema)) return schema.flatMap(allSchemas);
  if (!isSchema(schema)) return [];
  const nested = Object.entries(schema).flatMap(([key, v]) => {
    if (key === 'properties' || key === '$defs' || key === 'definitions' || key === 'patternProperties') return isSchema(v) ? Object.values(v).flatMap(allSchemas) : [];
    return key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? [] : allSchemas(v);
  });
  return [schema, ...nested];
}

/** Whether a definition refers to others (they could refer back: Claude takes no recursive schema). */
function mayRecurse(schema: Schema): boolean {
  const defs = [schema.$defs, schema.definitions].flatMap((d) => (isSchema(d) ? Object.values(d) : []));
  return defs.some((d) => allSchemas(d).some((s) => '$ref' in s));
}

/**
 * The schema Claude's structured outputs (Anthropic's `output_config.format`, Bedrock's
 * `outputConfig.textFormat`) constrain the answer to: the Anthropic SDK's own transform of it,
 * which moves the constraints Claude does not enforce (`minimum`, `maxLength` …) into
 * descriptions and closes every object (`additionalProperties: false`). `undefined` when Claude
 * cannot take it: not an object at the root, an object of open-ended keys (a map), definitions
 * that may recurse, or a subschema the transform refuses (no `type`).
 */
export function claudeOutputSchema(output: OutputFormat): Schema | undefined {
  const { schema } = output;
  if (schema.type !== 'object' || mayRecurse(schema)) return undefined;
  const openKeys = (s: Schema) => (s.additionalProperties !== undefined && s.additionalProperties !== false) || 'patternProperties' in s;
  if (allSchemas(schema).some(openKeys)) return undefined;
  try {
    return anthropicSchemaTransform().transformJSONSchema(schema);
  } catch {
    return undefined;
  }
}
