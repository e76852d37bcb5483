// @ts-check
/**
 * Import circles among perflow's TypeScript modules: every strongly connected group of modules
 * that import one another (directly or around a loop), type-only imports included — a circle of
 * types is still two rooms that cannot be understood apart. Used by the test that keeps the
 * count at zero (test/unit/house/import-circles.test.ts); `node scripts/import-circles.mjs`
 * prints them.
 */
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = dirname(import.meta.dirname);
const SKIP = new Set(['node_modules', 'dist', 'test', 'coverage', '.git']);

/** Every .ts file under the repository's source folders (tests excluded: they import anything). */
function sourceFiles(dir = ROOT) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIP.has(e.name) || e.name.startsWith('.') ? [] : sourceFiles(join(dir, e.name));
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [];
  });
}

/** The file a relative specifier names, or undefined for a package or a missing file. */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Each module's imports of other modules of the repository. */
export function importGraph() {
  /** @type {Map<string, string[]>} */
  const graph = new Map();
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles.map((i) => resolveImport(file, i.fileName)).filter((t) => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The circles: each a list of modules (paths from the repository root) that reach one another. */
export function importCircles(graph = importGraph()) {
  // Tarjan's strongly connected components.
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  const visit = (v) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indexOf.get(w)));
    }
    if (low.get(v) === indexOf.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(group.map((f) => relative(ROOT, f).split(sep).join('/')).sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return circles;
}

if (process.argv[1] === import.meta.filename) {
  const circles = importCircles();
  for (const c of circles) console.log(`${c.length} modules: ${c.join(' ')}`);
  console.log(`${circles.length} import circle(s)`);
}
