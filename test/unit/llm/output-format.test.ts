import { claudeOutputSchema, meetsStrictRules, openAiJsonSchema } from '../../../activities/llm/output-format';

/** A schema strict mode takes: closed objects, every property required, nested and in lists. */
const strictSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'The city' },
    count: { type: ['integer', 'null'], minimum: 0 },
    flights: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string', pattern: '^[A-Z]{2}[0-9]+$' } }, required: ['id'], additionalProperties: false },
    },
    kind: { anyOf: [{ type: 'string', enum: ['direct', 'connecting'] }, { $ref: '#/$defs/other' }] },
  },
  required: ['city', 'count', 'flights', 'kind'],
  additionalProperties: false,
  $defs: { other: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'], additionalProperties: false } },
};

/** `schema` with `at` (a path of keys) replaced by `value`, or removed when `value` is undefined. */
function changed(schema: Record<string, unknown>, at: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(schema);
  const parent = at.slice(0, -1).reduce((s: Record<string, unknown>, key) => s[key] as Record<string, unknown>, copy);
  const last = at[at.length - 1];
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

describe('meetsStrictRules', () => {
  it('takes a schema whose objects are all closed with every property required, in properties, items, anyOf and $defs', () => {
    expect(meetsStrictRules(strictSchema)).toBe(true);
    expect(meetsStrictRules({ type: 'object', properties: {}, additionalProperties: false })).toBe(true);
  });

  it.each([
    ['an optional property', ['required'], ['city', 'count', 'flights']],
    ['an object open to other properties', ['additionalProperties'], undefined],
    ['additionalProperties as a schema', ['additionalProperties'], { type: 'string' }],
    ['an optional property of an object in a list', ['properties', 'flights', 'items', 'required'], []],
    ['an open object in $defs', ['$defs', 'other', 'additionalProperties'], true],
    ['a keyword strict mode lacks', ['properties', 'city', 'minLength'], 1],
    ['a default', ['properties', 'city', 'default'], 'Paris'],
    ['$schema', ['$schema'], 'https://json-schema.org/draft/2020-12/schema'],
    ['oneOf', ['properties', 'kind'], { oneOf: [{ type: 'string' }, { type: 'integer' }] }],
    ['a boolean subschema', ['properties', 'city'], true],
    ['items as a list', ['properties', 'flights', 'items'], [{ type: 'string' }]],
  ])('refuses a schema with %s', (_what, at, value) => {
    expect(meetsStrictRules(changed(strictSchema, at, value))).toBe(false);
  });

  it('refuses a root that is not an object, and nesting deeper than 10 levels', () => {
    expect(meetsStrictRules({ type: 'array', items: { type: 'string' } })).toBe(false);
    expect(meetsStrictRules({ anyOf: [strictSchema] })).toBe(false);
    const nest = (levels: number): Record<string, unknown> =>
      levels === 1 ? { type: 'string' } : { type: 'object', properties: { a: nest(levels - 1) }, required: ['a'], additionalProperties: false };
    expect(meetsStrictRules(nest(10))).toBe(true);
    expect(meetsStrictRules(nest(11))).toBe(false);
  });
});

describe('openAiJsonSchema', () => {
  it('names the schema and asks for strict mode only when the schema meets its rules', () => {
    expect(openAiJsonSchema({ name: 'flights', schema: strictSchema })).toEqual({ name: 'flights', schema: strictSchema, strict: true });
    const loose = { type: 'object', properties: { city: { type: 'string' } } };
    expect(openAiJsonSchema({ name: 'answer', schema: loose })).toEqual({ name: 'answer', schema: loose, strict: false });
  });

  it('gives nothing for a root that is not an object, which OpenAI refuses strict or not', () => {
    expect(openAiJsonSchema({ name: 'cities', schema: { type: 'array', items: { type: 'string' } } })).toBeUndefined();
  });
});

describe('claudeOutputSchema', () => {
  it('closes every object and moves the constraints Claude does not enforce into descriptions, leaving the schema given as it was', () => {
    const schema = { type: 'object', properties: { city: { type: 'string', maxLength: 40 }, count: { type: 'integer', minimum: 0 } }, required: ['city'] };
    const given = structuredClone(schema);
    expect(claudeOutputSchema({ name: 'answer', schema })).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: '{maxLength: 40}' }, count: { type: 'integer', description: '{minimum: 0}' } },
      additionalProperties: false,
      required: ['city'],
    });
    expect(schema).toEqual(given);
  });

  it.each([
    ['a root that is not an object', { type: 'array', items: { type: 'string' } }],
    ['a map (open-ended keys)', { type: 'object', properties: { totals: { type: 'object', additionalProperties: { type: 'number' } } } }],
    ['patternProperties', { type: 'object', patternProperties: { '^x-': { type: 'string' } } }],
    ['definitions that refer to others', { type: 'object', properties: { tree: { $ref: '#/$defs/node' } }, $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } } }],
    ['a subschema without a type', { type: 'object', properties: { anything: {} } }],
  ])('gives nothing for %s', (_what, schema) => {
    expect(claudeOutputSchema({ name: 'answer', schema })).toBeUndefined();
  });
});
