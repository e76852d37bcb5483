import { schemaProblem } from '../../../core/schema-check';

const SCHEMA = {
  type: 'object',
  properties: {
    expression: { type: 'string' },
    digits: { type: 'integer' },
    mode: { enum: ['exact', 'approx'] },
    tags: { type: 'array', items: { type: 'string' } },
    nested: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'] },
  },
  required: ['expression'],
  additionalProperties: false,
};

describe('schemaProblem', () => {
  it('accepts an input that fits', () => {
    expect(schemaProblem(SCHEMA, { expression: '1+1', digits: 2, mode: 'exact', tags: ['a'], nested: { on: true } })).toBeUndefined();
  });

  it('names the first problem with its path', () => {
    expect(schemaProblem(SCHEMA, {})).toBe('input.expression: is required');
    expect(schemaProblem(SCHEMA, { expression: 5 })).toBe('input.expression: expected string, got number');
    expect(schemaProblem(SCHEMA, { expression: 'x', digits: 1.5 })).toBe('input.digits: expected integer, got number');
    expect(schemaProblem(SCHEMA, { expression: 'x', mode: 'fast' })).toBe('input.mode: expected one of "exact", "approx"');
    expect(schemaProblem(SCHEMA, { expression: 'x', tags: ['a', 2] })).toBe('input.tags[1]: expected string, got number');
    expect(schemaProblem(SCHEMA, { expression: 'x', nested: {} })).toBe('input.nested.on: is required');
    expect(schemaProblem(SCHEMA, { expression: 'x', extra: 1 })).toBe("input.extra: is not a property of this tool's input");
    expect(schemaProblem(SCHEMA, [])).toBe('input: expected object, got array');
  });

  it('accepts anything where a tool has no schema', () => {
    expect(schemaProblem(undefined, { anything: 1 })).toBeUndefined();
  });
});
