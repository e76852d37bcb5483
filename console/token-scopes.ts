/**
 * `perflow console --tokens FILE`: each token with the tenant it may see and act on. FILE is a
 * JSON object `{"TOKEN": {"tenant": "acme"}, "OPS-TOKEN": {"tenant": "*"}}`; `*` is an operator
 * (every tenant). Every problem is one line naming the file and the entry.
 */
import { readJsonFile } from '../client/json-file';
import { PerflowError } from '../client/errors';
import { OPERATOR, type TenantScope } from '../client/tenant-scope';

/** A token and what it may see. */
export interface ScopedToken {
  token: string;
  scope: TenantScope;
}

/** The shortest token a file may give: anything shorter is guessed too easily. */
export const MIN_TOKEN_CHARS = 16;

export async function readTokenScopes(file: string): Promise<ScopedToken[]> {
  return tokenScopesOf(await readJsonFile(file, '--tokens file'), file);
}

/** The tokens of a parsed tokens file. */
export function tokenScopesOf(json: unknown, file: string): ScopedToken[] {
  const bad = (what: string) => new PerflowError('invalid', `--tokens ${file}: ${what}`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad('expected a JSON object mapping each token to its scope, e.g. {"TOKEN": {"tenant": "acme"}}');
  const entries = Object.entries(json as Record<string, unknown>);
  if (entries.length === 0) throw bad('names no token');
  return entries.map(([token, scope], i) => {
    const where = `entry ${i + 1}`;
    if (token.length < MIN_TOKEN_CHARS) throw bad(`${where}: a token must have at least ${MIN_TOKEN_CHARS} characters (openssl rand -hex 24 makes one)`);
    const keys = typeof scope === 'object' && scope !== null && !Array.isArray(scope) ? Object.keys(scope) : undefined;
    const tenant = keys ? (scope as { tenant?: unknown }).tenant : undefined;
    if (!keys || keys.some((k) => k !== 'tenant') || typeof tenant !== 'string' || tenant.trim() === '') {
      throw bad(`${where}: expected {"tenant": "ID"} (or {"tenant": "*"} for every tenant)`);
    }
    return { token, scope: tenant === '*' ? OPERATOR : { tenant } };
  });
}
