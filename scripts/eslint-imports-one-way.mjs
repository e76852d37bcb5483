// @ts-check
/**
 * ESLint rule `perflow/imports-one-way`: a file of layer `layer` may import its own layer, the
 * layers in `may`, and the layers in `types` as types only; `packages` names the packages it must
 * not load (`builtins: true` for Node's). Sees every way a module gets loaded — `import`,
 * `export … from`, `require()`, `import()`, `import x = require()` — and `typeof import()` as a
 * type. Layers and `may` entries are paths from the repository root without extension: a folder
 * (`config`) or one module (`workflows/definitions`). The table is LAYERS in eslint.config.mjs.
 */
import { isBuiltin } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';

const ROOT = dirname(import.meta.dirname);

/** `config/env` for `../config/env` imported from `client/connect.ts`. */
function moduleOf(filename, specifier) {
  const path = relative(ROOT, resolve(dirname(filename), specifier)).split(sep).join('/');
  return path.replace(/\.(ts|js|json)$/, '').replace(/\/index$/, '');
}

const within = (module, layer) => module === layer || module.startsWith(`${layer}/`);
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const matches = (name, pattern) => (pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/** The module a string literal (or a template literal without expressions) names. */
function literal(node) {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const importsOneWay = {
  meta: {
    type: 'problem',
    docs: { description: 'imports run one way between layers (LAYERS in eslint.config.mjs)' },
    schema: [
      {
        type: 'object',
        properties: {
          layer: { type: 'string' },
          may: { type: 'array', items: { type: 'string' } },
          types: { type: 'array', items: { type: 'string' } },
          packages: {
            type: 'object',
            properties: { builtins: { type: 'boolean' }, packages: { type: 'array', items: { type: 'string' } }, why: { type: 'string' } },
            additionalProperties: false,
          },
        },
        required: ['layer', 'may'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { layer, may, types = [], packages } = context.options[0];
    const allowed = [...may, ...types.map((t) => `${t} (types only)`)].join(', ') || 'nothing outside it';

    /** Reports `source` (a specifier node) when this layer may not load what it names. */
    function check(source, typeOnly) {
      const specifier = literal(source);
      if (specifier === undefined) {
        context.report({ node: source, message: 'load modules by a literal path, so lint can check which layer it is in' });
        return;
      }
      if (specifier.startsWith('.')) {
        const target = moduleOf(context.filename, specifier);
        if (target.startsWith('..') || within(target, layer) || may.some((m) => within(target, m)) || (typeOnly && types.some((t) => within(target, t)))) return;
        context.report({ node: source, message: `${layer} may not import ${target}: it imports ${allowed} (imports run one way: LAYERS in eslint.config.mjs)` });
      } else if (packages && !typeOnly && ((packages.builtins && isBuiltin(specifier)) || (packages.packages ?? []).some((p) => matches(packageOf(specifier), p)))) {
        context.report({ node: source, message: `${specifier}: ${packages.why}` });
      }
    }
    const allTypes = (specifiers, kind) => specifiers.length > 0 && specifiers.every((s) => s[kind] === 'type');

    return {
      ImportDeclaration: (node) => check(node.source, node.importKind === 'type' || allTypes(node.specifiers, 'importKind')),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.exportKind === 'type' || allTypes(node.specifiers, 'exportKind')),
      ExportAllDeclaration: (node) => check(node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node.source, false),
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments.length > 0) check(node.arguments[0], false);
      },
      TSImportEqualsDeclaration(node) {
        if (node.moduleReference.type === 'TSExternalModuleReference') check(node.moduleReference.expression, node.importKind === 'type');
      },
      TSImportType(node) {
        check(node.source ?? node.argument?.literal ?? node.argument, true);
      },
    };
  },
};
