import { OPERATOR } from '../../../client/tenant-scope';
import { tokenScopesOf } from '../../../console/token-scopes';

describe('a console tokens file (--tokens FILE)', () => {
  it('maps each token to its tenant, "*" to every tenant', () => {
    expect(tokenScopesOf({ 'tok-acme-0123456789ab': { tenant: 'acme' }, 'tok-ops-0123456789abc': { tenant: '*' } }, 't.json')).toEqual([
      { token: 'tok-acme-0123456789ab', scope: { tenant: 'acme' } },
      { token: 'tok-ops-0123456789abc', scope: OPERATOR },
    ]);
  });

  it.each([
    [[], 'expected a JSON object mapping each token to its scope, e.g. {"TOKEN": {"tenant": "acme"}}'],
    [{}, 'names no token'],
    [{ short: { tenant: 'acme' } }, 'entry 1: a token must have at least 16 characters (openssl rand -hex 24 makes one)'],
    [{ 'tok-acme-0123456789ab': 'acme' }, 'entry 1: expected {"tenant": "ID"} (or {"tenant": "*"} for every tenant)'],
    [{ 'tok-acme-0123456789ab': { tenant: ' ' } }, 'entry 1: expected {"tenant": "ID"} (or {"tenant": "*"} for every tenant)'],
    [{ 'tok-acme-0123456789ab': { tenant: 'acme', admin: true } }, 'entry 1: expected {"tenant": "ID"} (or {"tenant": "*"} for every tenant)'],
  ])('refuses %j in one line naming the file and the entry', (json, why) => {
    expect(() => tokenScopesOf(json, 't.json')).toThrow(`--tokens t.json: ${why}`);
  });
});
