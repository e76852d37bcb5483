/**
 * What every perflow HTTP listener (the console, the codec server) checks before it answers:
 * the `Host` it was reached by (DNS rebinding), the bearer token, and the headers that keep a
 * browser from framing or sniffing its answers. One implementation for both servers.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { PerflowError } from './errors';

/** Loopback names and addresses: only this machine reaches them. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** A new random token: 192 bits, URL-safe. */
export const newToken = (): string => randomBytes(24).toString('base64url');

/**
 * Whether `given` is the token. Both sides are hashed first, so the comparison takes the same
 * time whatever the content or the length of the guess.
 */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The token of an `Authorization: Bearer T` header, if it has one. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** The host name of a `Host` header value (`name:port`, `[::1]:port`), lower-cased; undefined when it is not one. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\[[0-9a-f:.]+\]|[\w.-]+)(?::\d{1,5})?$/i.exec(header.trim());
  return m ? m[1].replace(/^\[|\]$/g, '').toLowerCase() : undefined;
}

/**
 * The `Host` names a listener serves: loopback names, any IP address (a rebinding attack needs a
 * DNS name; an address cannot be re-pointed), the host it is bound to, and the names given
 * (`--allowed-host`). Any other name is refused whatever the token: a page that made its own
 * name resolve to this machine must not reach it.
 */
export function hostAllowList(boundHost: string, allowed: readonly string[] = []): (header: string | undefined) => boolean {
  const names = new Set([boundHost, ...allowed].map((h) => h.replace(/^\[|\]$/g, '').toLowerCase()));
  return (header) => {
    const name = hostName(header);
    return name !== undefined && (isLoopbackHost(name) || isIP(name) !== 0 || names.has(name));
  };
}

/** The one line a refused `Host` gets (403). */
export const refusedHostMessage = (header: string | undefined, flag = '--allowed-host'): string =>
  `requests for host "${header ?? ''}" are refused: this server answers only to its own names (add one with ${flag} NAME)`;

/** A `--allowed-host` value: a host name or address, no scheme, port or path (else a usage error). */
export function checkedAllowedHost(value: string): string {
  const name = hostName(value);
  if (name === undefined || value.includes(':') !== (isIP(name) === 6)) throw new PerflowError('invalid', `--allowed-host expects a host name such as console.example.com (no scheme or port), got "${value}"`);
  return name;
}

/**
 * Headers every answer carries: no framing (clickjacking), no MIME sniffing, no Referer (the page
 * is first opened with its token in the URL). `scripts` lists the hashes of the page's inline
 * scripts (its import map).
 */
export function securityHeaders(scriptHashes: readonly string[] = []): Record<string, string> {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'${h}'`)].join(' ');
  return {
    'Content-Security-Policy': `default-src 'self'; script-src ${scripts}; img-src 'self' data:; style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * Why a request from a browser page of another site is refused, or undefined when it is not one:
 * the browser says so (`Sec-Fetch-Site: cross-site`), or its `Origin` names another host than the
 * one the request was sent to. Requests without either (scripts, CLIs) are not browsers' pages.
 */
export function crossSiteRefusal(headers: { origin?: string; host?: string; secFetchSite?: string }, what: string): string | undefined {
  if (headers.secFetchSite === 'cross-site') return `requests from other sites are refused: ${what}`;
  if (headers.origin === undefined) return undefined;
  let host: string | undefined;
  try {
    host = new URL(headers.origin).host;
  } catch {
    host = undefined;
  }
  return host === headers.host ? undefined : `requests from ${headers.origin} are refused: ${what}`;
}
