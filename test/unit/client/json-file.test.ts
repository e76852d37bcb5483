import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerflowError, type ErrorKind } from '../../../client/errors';
import { parseJsonObject, readJsonFile } from '../../../client/json-file';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-json-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The one-line error a call fails with, and its kind. */
async function failure(fn: () => unknown): Promise<[string, ErrorKind]> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof PerflowError) return [err.message, err.kind];
    throw err;
  }
  throw new Error('expected a PerflowError');
}

describe('reading a JSON file people hand in', () => {
  it('returns its value', async () => {
    writeFileSync(join(dir, 'ok.json'), '{"a": [1]}');
    await expect(readJsonFile(join(dir, 'ok.json'), 'agent file')).resolves.toEqual({ a: [1] });
  });

  it('names a missing file (not found), an unreadable one and one that is not JSON (invalid), in one line', async () => {
    const missing = join(dir, 'missing.json');
    expect(await failure(() => readJsonFile(missing, 'agent file'))).toEqual([`agent file not found: ${missing}`, 'not_found']);
    const [unreadable, kind] = await failure(() => readJsonFile(dir, 'history file'));
    expect(unreadable).toMatch(new RegExp(`^cannot read history file ${dir}: EISDIR`));
    expect(kind).toBe('invalid');
    writeFileSync(join(dir, 'bad.json'), '{nope');
    const [bad] = await failure(() => readJsonFile(join(dir, 'bad.json'), 'steps file'));
    expect(bad).toMatch(new RegExp(`^steps file ${join(dir, 'bad.json')} is not valid JSON: `));
    expect(bad).not.toContain('\n');
  });

  it('takes a JSON object as an option value, naming the option when it is not one', async () => {
    expect(parseJsonObject('{"x": 1}', '--input')).toEqual({ x: 1 });
    expect(await failure(() => parseJsonObject('[1]', '--input'))).toEqual(['--input must be a JSON object', 'invalid']);
    expect((await failure(() => parseJsonObject('{', '--input')))[0]).toMatch(/^--input is not valid JSON: /);
  });
});
