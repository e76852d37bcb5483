import { Double, Int32, Long, ObjectId, type Document } from 'mongodb';
import { builtinTools, BUILTIN_TOOL_TYPES } from '../../../activities/tools/builtin';
import { bsonTypeName, collectFields, renderOutput } from '../../../activities/tools/mongo-tools';
import { toolSpec } from '../../../activities/tools/tool';

function describeSample(docs: Document[]) {
  const fields = new Map<string, { types: Map<string, number>; elementTypes?: Map<string, number>; documents: number; example?: unknown }>();
  for (const doc of docs) collectFields(doc, fields);
  return Object.fromEntries(
    [...fields].map(([path, s]) => [path, { types: Object.fromEntries(s.types), documents: s.documents, ...(s.elementTypes ? { elements: Object.fromEntries(s.elementTypes) } : {}) }]),
  );
}

describe('schema inference from sampled documents', () => {
  it('names BSON types the way $type does', () => {
    expect(bsonTypeName('x')).toBe('string');
    expect(bsonTypeName(new Int32(3))).toBe('int');
    expect(bsonTypeName(new Double(3))).toBe('double');
    expect(bsonTypeName(Long.fromNumber(3))).toBe('long');
    expect(bsonTypeName(new ObjectId())).toBe('objectId');
    expect(bsonTypeName(new Date())).toBe('date');
    expect(bsonTypeName(true)).toBe('bool');
    expect(bsonTypeName(null)).toBe('null');
    expect(bsonTypeName({ a: 1 })).toBe('object');
    expect(bsonTypeName([1])).toBe('array');
  });

  it('reports nested fields by dotted path with per-document type counts', () => {
    expect(
      describeSample([
        { origin: 'Beijing', aircraft: { model: 'A320', seats: new Int32(180) } },
        { origin: 'Paris', aircraft: { model: 'B737' } },
        { origin: null },
      ]),
    ).toEqual({
      origin: { types: { string: 2, null: 1 }, documents: 3 },
      aircraft: { types: { object: 2 }, documents: 2 },
      'aircraft.model': { types: { string: 2 }, documents: 2 },
      'aircraft.seats': { types: { int: 1 }, documents: 1 },
    });
  });

  it('reports objects inside arrays under the array path and counts each document once', () => {
    expect(describeSample([{ legs: [{ airport: 'PEK' }, { airport: 'SEA' }], tags: ['a', 'b', new Int32(1)] }])).toEqual({
      legs: { types: { array: 1 }, documents: 1 },
      'legs.airport': { types: { string: 1 }, documents: 1 },
      tags: { types: { array: 1 }, documents: 1, elements: { string: 1, int: 1 } },
    });
  });
});

describe('tool output rendering', () => {
  it('keeps short output whole as relaxed extended JSON', () => {
    expect(renderOutput({ n: 1, at: new Date(0) }, 100)).toBe('{"n":1,"at":{"$date":"1970-01-01T00:00:00Z"}}');
  });

  it('cuts long output at the limit and says so', () => {
    const out = renderOutput({ text: 'x'.repeat(500) }, 50);
    expect(out.startsWith('{"text":"xxxx')).toBe(true);
    expect(out).toMatch(/…\[truncated: the output was 511 characters, over the limit of 50;/);
  });
});

describe('the built-in tools', () => {
  it('are the calculator alone without a MongoDB client', () => {
    expect(builtinTools({}).map((t) => t.type)).toEqual(['CalculatorTool']);
  });

  it('include the MongoDB tools, each with a JSON-schema input, when given a client', () => {
    const tools = builtinTools({ mongo: {} as never, defaultDb: 'db' });
    expect(tools.map((t) => t.type)).toEqual([...BUILTIN_TOOL_TYPES]);
    for (const tool of tools) expect(toolSpec(tool).input_schema).toMatchObject({ type: 'object' });
    expect(toolSpec(tools[3]).input_schema).toMatchObject({ required: ['collection'] });
  });
});
