'use strict';
// A V8 code cache for CommonJS modules, for Node versions without `module.enableCompileCache`
// (Node 20): compiling a command's modules (the Temporal client, gRPC, the protobuf definitions)
// takes ~110 ms of CPU at every start, a worker's ~480 ms; reading them from the cache about a
// third of that, and the functions they ran come compiled too. Kept in one file per Node
// version and architecture in perflow's cache folder; an entry is found by the SHA-1 of the
// module's path and source, so an edited (or transpiled) file is compiled afresh. V8 checks
// each entry against its own version and flags and rejects what does not fit. Any failure
// (unwritable folder, truncated file) leaves modules compiled as usual.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

/** Past this size a rewrite keeps only the entries this process used (sources change in a checkout). */
const MAX_BYTES = 16 * 2 ** 20;

/** perflow's cache folder, as config/cache-dir.ts names it. */
function cacheFolder(env) {
  return env.PERFLOW_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'perflow');
}

/** The stored entries: a 4-byte header length, a JSON header `{key: [offset, length]}`, then the entries' bytes. */
function readEntries(file) {
  const entries = new Map();
  try {
    const data = readFileSync(file);
    const headerBytes = data.readUInt32LE(0);
    const header = JSON.parse(data.toString('utf8', 4, 4 + headerBytes));
    const start = 4 + headerBytes;
    for (const [key, [offset, length]] of Object.entries(header)) {
      if (start + offset + length <= data.length) entries.set(key, data.subarray(start + offset, start + offset + length));
    }
  } catch {
    // No cache yet, or not one we can read: start empty.
  }
  return entries;
}

function writeEntries(file, entries) {
  const header = {};
  let offset = 0;
  for (const [key, bytes] of entries) {
    header[key] = [offset, bytes.length];
    offset += bytes.length;
  }
  const headerBuffer = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBuffer.length, 0);
  mkdirSync(dirname(file), { recursive: true });
  // Written whole, then renamed: a process starting meanwhile reads the old file or the new one.
  const partial = `${file}.${process.pid}`;
  try {
    writeFileSync(partial, Buffer.concat([length, headerBuffer, ...entries.values()]));
    renameSync(partial, file);
  } catch (err) {
    try {
      unlinkSync(partial);
    } catch {
      // never written
    }
    throw err;
  }
}

/** `require` as Node makes it for a module. */
function requireFor(mod) {
  const require = (id) => mod.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

/**
 * Compiles CommonJS modules through the cache from now on; at exit, stores the code of the
 * modules that had no usable entry (with the functions they ran compiled by then).
 */
function useCodeCache(env = process.env) {
  if (typeof Module.prototype._compile !== 'function' || typeof vm.Script.prototype.createCachedData !== 'function') return;
  // Node 22's switch for its own compile cache turns this one off too.
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  // Options under which Node's loader does more than compile and run a module: left to it.
  const options = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (options.some((o) => /^--(inspect-brk|experimental-policy|policy-integrity|experimental-require-module)\b/.test(o))) return;
  const file = join(cacheFolder(env), 'code-cache', `${process.version}-${process.arch}.bin`);
  const entries = readEntries(file);
  const used = new Set();
  const fresh = new Map();
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileCached(content, filename, format, ...rest) {
    const usual = () => compile.call(this, content, filename, format, ...rest);
    // Compiled as usual: an ES module, a shebang (valid only at a script's start), dynamic
    // import() (it needs Node's own loader) and, with source maps on (tsx turns them on), a module
    // naming its source map: Node maps stack traces only through the modules it compiles itself.
    if (typeof content !== 'string' || (format !== undefined && format !== 'commonjs') || content.startsWith('#!') || content.includes('import(')) return usual();
    if (process.sourceMapsEnabled !== false && content.includes('sourceMappingURL=')) return usual();
    const key = createHash('sha1').update(filename).update('\0').update(content).digest('base64url');
    const cachedData = entries.get(key);
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    } catch {
      // Not CommonJS (ES module syntax Node may detect) or a syntax error: Node's loader says which.
      return usual();
    }
    if (cachedData && !script.cachedDataRejected) used.add(key);
    else fresh.set(key, script);
    const run = script.runInThisContext({ displayErrors: true });
    return run.call(this.exports, this.exports, requireFor(this), this, filename, dirname(filename));
  };
  process.once('exit', () => {
    if (fresh.size === 0) return;
    try {
      let total = 0;
      for (const bytes of entries.values()) total += bytes.length;
      if (total > MAX_BYTES) for (const key of entries.keys()) if (!used.has(key)) entries.delete(key);
      for (const [key, script] of fresh) entries.set(key, script.createCachedData());
      writeEntries(file, entries);
    } catch {
      // An unwritable cache folder: the next start compiles as this one did.
    }
  });
}

module.exports = { useCodeCache };
