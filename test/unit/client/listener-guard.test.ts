import { checkedAllowedHost, hostAllowList, hostName, isLoopbackHost, newToken, securityHeaders, tokenMatches } from '../../../client/listener-guard';

describe('the Host allow-list of perflow listeners', () => {
  const allowed = hostAllowList('127.0.0.1', ['console.example.com']);

  it('serves loopback names, IP addresses, the bound host and the names given', () => {
    for (const host of ['127.0.0.1:7300', 'localhost:7300', 'LOCALHOST', '[::1]:7300', 'app.localhost', '10.0.0.5:7300', '[fe80::1]', 'console.example.com', 'Console.Example.COM:443']) expect([host, allowed(host)]).toEqual([host, true]);
  });

  it('refuses any other name (a rebinding page), a missing Host and malformed ones', () => {
    for (const host of ['attacker.example:7300', 'localhost.attacker.example', '127.0.0.1.nip.io', 'example.com', '', undefined, 'a b', 'host:port', 'http://localhost']) expect([host, allowed(host)]).toEqual([host, false]);
  });

  it('takes the bound host as a name', () => {
    expect(hostAllowList('myhost.internal')('myhost.internal:7300')).toBe(true);
    expect(hostAllowList('0.0.0.0')('myhost.internal:7300')).toBe(false);
  });

  it('parses Host values and checks --allowed-host values', () => {
    expect([hostName('[::1]:80'), hostName('Example.com:8080'), hostName('x:99999999')]).toEqual(['::1', 'example.com', undefined]);
    expect([checkedAllowedHost('Console.example.com'), checkedAllowedHost('[::1]'), checkedAllowedHost('10.0.0.1')]).toEqual(['console.example.com', '::1', '10.0.0.1']);
    for (const bad of ['http://x.example', 'x.example:80', 'x/y', '']) expect(() => checkedAllowedHost(bad)).toThrow(/^--allowed-host expects a host name such as console\.example\.com \(no scheme or port\), got/);
  });

  it('knows loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', 'example.com', '::'].some(isLoopbackHost)).toBe(false);
  });
});

describe('tokens', () => {
  it('are 192 random bits, URL-safe', () => {
    const tokens = new Set(Array.from({ length: 50 }, newToken));
    expect(tokens.size).toBe(50);
    for (const t of tokens) expect(Buffer.from(t, 'base64url')).toHaveLength(24);
  });

  it('match only whole: a prefix, a longer guess, another case or nothing is refused', () => {
    const token = newToken();
    expect(tokenMatches(token, token)).toBe(true);
    for (const given of [undefined, '', token.slice(0, -1), `${token}x`, token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase()]) expect(tokenMatches(given, token)).toBe(false);
  });
});

it('security headers forbid framing and sniffing, allow only the hashed inline scripts, and send no Referer', () => {
  const h = securityHeaders(['sha256-abc=']);
  expect(h).toEqual({
    'Content-Security-Policy': expect.stringContaining("script-src 'self' 'sha256-abc='"),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  expect(h['Content-Security-Policy']).toMatch(/^default-src 'self'; .*frame-ancestors 'none'$/);
});
