import { assertReadOnly, findForbiddenOperator, FORBIDDEN_OPERATORS, referencedCollections } from '../../../activities/tools/mongo-guard';

describe('the forbidden-operator walker', () => {
  it('finds nothing in an ordinary filter or pipeline', () => {
    expect(findForbiddenOperator({ origin: 'Beijing', price: { $lt: 500 }, $or: [{ a: 1 }, { b: { $in: [1, 2] } }] })).toBeUndefined();
    expect(findForbiddenOperator([{ $match: { dest: 'Seattle' } }, { $group: { _id: '$carrier', n: { $sum: 1 } } }])).toBeUndefined();
  });

  it.each(FORBIDDEN_OPERATORS)('finds %s used as a top-level key', (operator) => {
    expect(findForbiddenOperator({ [operator]: {} })).toEqual({ operator, path: operator });
  });

  it('finds operators nested deep inside objects and arrays and reports where they are', () => {
    const pipeline = [
      { $match: { a: 1 } },
      { $facet: { slow: [{ $match: { $expr: { $function: { body: 'return 1', args: [], lang: 'js' } } } }] } },
    ];
    expect(findForbiddenOperator(pipeline, 'pipeline')).toEqual({ operator: '$function', path: 'pipeline[1].$facet.slow[0].$match.$expr.$function' });
    expect(findForbiddenOperator({ $and: [{ x: 1 }, { $where: 'this.x > 1' }] })).toEqual({ operator: '$where', path: '$and[1].$where' });
    expect(findForbiddenOperator([{ $group: { _id: null, v: { $accumulator: {} } } }])?.operator).toBe('$accumulator');
  });

  it('allows forbidden names as string values and field paths, which are not operators', () => {
    expect(findForbiddenOperator({ note: '$out', tags: ['$merge'], $project: { x: '$where' } })).toBeUndefined();
  });

  it('ignores values that are not plain objects or arrays', () => {
    expect(findForbiddenOperator(null)).toBeUndefined();
    expect(findForbiddenOperator('$out')).toBeUndefined();
    expect(findForbiddenOperator({ when: new Date(0), n: 3, ok: true, none: null })).toBeUndefined();
  });

  it('throws an error naming the operator and its place when asked to assert read-only input', () => {
    expect(() => assertReadOnly([{ $match: {} }, { $out: 'copy' }], 'pipeline')).toThrow(/forbidden operator \$out at pipeline\[1\]\.\$out/);
    expect(() => assertReadOnly({ filter: { $where: '1' } })).toThrow(/\$where.*read-only.*JavaScript/);
    expect(() => assertReadOnly({ filter: { a: 1 } })).not.toThrow();
  });
});

describe('the collection-reference walker', () => {
  it('finds the collections and databases that $lookup, $graphLookup and $unionWith read', () => {
    const pipeline = [
      { $lookup: { from: 'airports', localField: 'origin', foreignField: 'city', as: 'o' } },
      { $unionWith: 'archive' },
      { $unionWith: { coll: 'older', pipeline: [{ $graphLookup: { from: 'routes', startWith: '$x', connectFromField: 'a', connectToField: 'b', as: 'r' } }] } },
      { $lookup: { from: { db: 'other', coll: 'secrets' }, pipeline: [], as: 's' } },
    ];
    expect(referencedCollections(pipeline)).toEqual([
      { collection: 'airports', stage: '$lookup' },
      { collection: 'archive', stage: '$unionWith' },
      { collection: 'older', stage: '$unionWith' },
      { collection: 'routes', stage: '$graphLookup' },
      { collection: 'secrets', database: 'other', stage: '$lookup' },
    ]);
  });

  it('finds none in a pipeline that reads only its own collection', () => {
    expect(referencedCollections([{ $match: { from: 'x' } }])).toEqual([]);
    expect(referencedCollections(undefined)).toEqual([]);
  });
});
