/**
 * The code cache bin/perflow.js uses on Node without `module.enableCompileCache`
 * (bin/code-cache.js): modules compiled once and taken from the cache at later starts, behaving
 * as Node's own loader makes them; an edited module compiled afresh; a broken or unwritable cache
 * never stops a start.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

jest.setTimeout(60_000);

const CODE_CACHE = resolve(__dirname, '../../../bin/code-cache.js');
let dir: string;

interface Compiled {
  file: string;
  cached: boolean;
  rejected: boolean | undefined;
}
interface Start {
  exported: Record<string, unknown>;
  compiled: Compiled[];
}

/** A process that uses the cache in `cacheDir` and requires ./main.js: what main.js exports, and how each module compiled. */
function start(cacheDir: string, nodeOptions: string[] = [], env: Record<string, string> = {}): Start {
  const out = execFileSync(process.execPath, [...nodeOptions, join(dir, 'runner.js')], { env: { PATH: process.env.PATH, PERFLOW_CACHE_DIR: cacheDir, ...env }, encoding: 'utf8' });
  return JSON.parse(out) as Start;
}

const cacheFiles = (cacheDir: string) => readdirSync(join(cacheDir, 'code-cache'));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-code-cache-'));
  // Counts the compilations the cache makes (it compiles with vm.Script), then runs main.js through it.
  writeFileSync(
    join(dir, 'runner.js'),
    `const vm = require('node:vm');
const compiled = [];
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    compiled.push({ file: require('node:path').basename(options.filename), cached: !!options.cachedData, rejected: this.cachedDataRejected });
  }
};
require(${JSON.stringify(CODE_CACHE)}).useCodeCache();
const main = require('./main.js');
main.imported().then((imported) => process.stdout.write(JSON.stringify({ exported: { ...main, imported }, compiled })));
`,
  );
  writeFileSync(
    join(dir, 'main.js'),
    `'use strict';
const { answer } = require('./answer.js');
let thrown;
try { require('./throws.js'); } catch (err) { thrown = err.stack.split('\\n').find((l) => l.includes('throws.js')); }
module.exports = {
  answer: answer(),
  filename: __filename,
  dirname: __dirname,
  isThis: this === module.exports,
  resolved: require.resolve('./answer.js'),
  paths: Array.isArray(require.resolve.paths('x')),
  cached: require.cache[require.resolve('./answer.js')] !== undefined,
  main: require.main === module,
  thrown,
  mappedFrame: require('./mapped.js').frame(),
  broken: (() => { try { require('./broken.js'); } catch (err) { return [err.name, err.stack.split('\\n')[0]]; } })(),
  imported: () => require('./imports.js').imported(),
};
`,
  );
  // Its source map says line 1 is line 10 of original.ts.
  const map = Buffer.from(JSON.stringify({ version: 3, sources: ['original.ts'], names: [], mappings: 'AASA' })).toString('base64');
  writeFileSync(
    join(dir, 'mapped.js'),
    `exports.frame = () => { try { throw new Error('mapped'); } catch (err) { return err.stack.split('\\n')[1].trim(); } };\n//# sourceMappingURL=data:application/json;base64,${map}\n`,
  );
  writeFileSync(join(dir, 'answer.js'), 'exports.answer = () => 41;\n');
  writeFileSync(join(dir, 'broken.js'), 'exports.broken = ;\n');
  writeFileSync(join(dir, 'throws.js'), "'use strict';\n\nthrow new Error('at line 3');\n");
  // Dynamic import() needs Node's own loader: such a module compiles as usual.
  writeFileSync(join(dir, 'imports.js'), "exports.imported = () => import('./value.mjs').then((m) => m.value);\n");
  writeFileSync(join(dir, 'value.mjs'), 'export const value = 7;\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('compiles modules once, then takes them from the cache; they behave as Node loads them', () => {
  const cacheDir = join(dir, 'cache');
  const first = start(cacheDir);
  const expected = {
    answer: 41,
    filename: join(dir, 'main.js'),
    dirname: dir,
    isThis: true,
    resolved: join(dir, 'answer.js'),
    paths: true,
    cached: true,
    main: false,
    thrown: expect.stringContaining(`${join(dir, 'throws.js')}:3:`),
    mappedFrame: expect.stringContaining(`${join(dir, 'mapped.js')}:1:`),
    // Node's own error for a module that does not compile.
    broken: ['SyntaxError', `${join(dir, 'broken.js')}:1`],
    imported: 7,
  };
  expect(first.exported).toEqual(expected);
  expect(first.compiled.map((c) => [c.file, c.cached])).toEqual([
    ['main.js', false],
    ['answer.js', false],
    ['throws.js', false],
    ['mapped.js', false],
  ]);
  expect(cacheFiles(cacheDir)).toEqual([`${process.version}-${process.arch}.bin`]);
  const file = join(cacheDir, 'code-cache', cacheFiles(cacheDir)[0]);
  const written = statSync(file).mtimeMs;

  const second = start(cacheDir);
  expect(second.exported).toEqual(expected);
  expect(second.compiled).toEqual([
    { file: 'main.js', cached: true, rejected: false },
    { file: 'answer.js', cached: true, rejected: false },
    { file: 'throws.js', cached: true, rejected: false },
    { file: 'mapped.js', cached: true, rejected: false },
  ]);
  // Nothing new compiled: the cache is not written again.
  expect(statSync(file).mtimeMs).toBe(written);
});

it('leaves a module with a source map to Node when source maps are on, so its stack traces stay mapped', () => {
  const cacheDir = join(dir, 'cache-source-maps');
  for (let i = 0; i < 2; i++) {
    const r = start(cacheDir, ['--enable-source-maps']);
    expect(r.exported.mappedFrame).toContain(`${join(dir, 'original.ts')}:10:`);
    expect(r.compiled.map((c) => c.file)).not.toContain('mapped.js');
    expect(r.compiled.find((c) => c.file === 'main.js')?.cached).toBe(i === 1);
  }
});

it('compiles an edited module afresh, even at the same length', () => {
  const cacheDir = join(dir, 'cache-edited');
  start(cacheDir);
  writeFileSync(join(dir, 'answer.js'), 'exports.answer = () => 42;\n');
  try {
    const edited = start(cacheDir);
    expect(edited.exported.answer).toBe(42);
    expect(edited.compiled.find((c) => c.file === 'answer.js')).toEqual({ file: 'answer.js', cached: false, rejected: undefined });
    expect(edited.compiled.find((c) => c.file === 'main.js')?.cached).toBe(true);
  } finally {
    writeFileSync(join(dir, 'answer.js'), 'exports.answer = () => 41;\n');
  }
});

it('starts as usual with a damaged cache file, and writes a good one', () => {
  const cacheDir = join(dir, 'cache-damaged');
  start(cacheDir);
  const file = join(cacheDir, 'code-cache', cacheFiles(cacheDir)[0]);
  for (const damaged of [Buffer.from('not a cache'), readFileSync(file).subarray(0, 200)]) {
    writeFileSync(file, damaged);
    expect(start(cacheDir).exported.answer).toBe(41);
    expect(start(cacheDir).compiled.every((c) => c.cached && !c.rejected)).toBe(true);
  }
});

it('starts as usual where the cache folder cannot be made', () => {
  const notAFolder = join(dir, 'a-file');
  writeFileSync(notAFolder, '');
  const r = start(join(notAFolder, 'cache'));
  expect(r.exported.answer).toBe(41);
  expect(r.compiled.every((c) => !c.cached)).toBe(true);
});

it('is off with NODE_DISABLE_COMPILE_CACHE, as Node 22\'s own cache is', () => {
  const cacheDir = join(dir, 'cache-disabled');
  for (let i = 0; i < 2; i++) {
    const r = start(cacheDir, [], { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.exported.answer).toBe(41);
    expect(r.compiled).toEqual([]);
  }
  expect(() => cacheFiles(cacheDir)).toThrow(/ENOENT/);
});
