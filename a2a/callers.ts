/**
 * Who calls `perflow a2a`: each request's bearer token names a tenant scope (the generated token,
 * or a `--tokens FILE` entry), carried to the task store and the executor as the A2A SDK's user.
 */
import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import { OPERATOR, type TenantScope } from '../client/tenant-scope';
import { tokenMatches } from '../client/listener-guard';
import type { ScopedToken } from '../console/token-scopes';

/** A caller that gave a valid token, and what it may see; `gone` aborts once its connection has closed. */
export class ScopedUser implements User {
  constructor(
    readonly scope: TenantScope,
    readonly gone?: AbortSignal,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.scope.tenant ?? '*';
  }
}

/** The scope of a caller the listener did not vouch for: a tenant no task belongs to. */
export const NO_SCOPE: TenantScope = { tenant: '\u0000none' };

/**
 * The scope of a request's caller. A context without one (never built by the listener) sees
 * nothing: a task store reached some other way must not answer as an operator.
 */
export function scopeOf(context: ServerCallContext | undefined): TenantScope {
  const user = context?.user;
  return user instanceof ScopedUser ? user.scope : NO_SCOPE;
}

/** Aborts once the caller's connection has closed (a subscriber that went away), where the listener knows it. */
export function callerGone(context: ServerCallContext | undefined): AbortSignal | undefined {
  const user = context?.user;
  return user instanceof ScopedUser ? user.gone : undefined;
}

/** The scope a token grants, or undefined when it is none of the tokens. */
export function scopeOfToken(given: string | undefined, tokens: readonly ScopedToken[]): TenantScope | undefined {
  if (given === undefined) return undefined;
  // Every token is compared (in constant time each), so the time taken does not say which matched.
  let found: TenantScope | undefined;
  for (const t of tokens) if (tokenMatches(given, t.token) && found === undefined) found = t.scope;
  return found;
}

export { OPERATOR };
