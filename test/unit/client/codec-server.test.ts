import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { defaultPayloadConverter } from '@temporalio/common';
import { payloadToJson, startCodecServer, type CodecServer, type JsonPayload } from '../../../client/codec-server';
import { EncryptionCodec } from '../../../codec/encryption';
import { parseEncryptionKeys } from '../../../config/env';

const UI = 'http://127.0.0.1:8233';
const keyring = parseEncryptionKeys(`A:${randomBytes(32).toString('base64')}`);
const codec = new EncryptionCodec(keyring);
let server: CodecServer;
let secured: CodecServer;

beforeAll(async () => {
  server = await startCodecServer({ keyring, port: 0, uiOrigins: [UI] });
  secured = await startCodecServer({ keyring, port: 0, uiOrigins: [UI], token: 's3cret' });
});
afterAll(async () => {
  await server?.close();
  await secured?.close();
});

const post = (base: string, path: string, payloads: JsonPayload[], headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers }, body: JSON.stringify({ payloads }) });

describe('perflow codec server', () => {
  it('listens on loopback by default', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('decodes what the codec encrypted to the plaintext JSON payload, and encodes', async () => {
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload({ question: 'why?' })]);
    const res = await post(server.url, '/decode', [payloadToJson(encrypted)], { Origin: UI });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const body = (await res.json()) as { payloads: JsonPayload[] };
    expect(Buffer.from(body.payloads[0].metadata!.encoding, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(body.payloads[0].data!, 'base64').toString())).toEqual({ question: 'why?' });

    const enc = (await (await post(server.url, '/encode', body.payloads)).json()) as { payloads: JsonPayload[] };
    expect(Buffer.from(enc.payloads[0].metadata!.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(enc.payloads[0].metadata!['encryption-key-id'], 'base64').toString()).toBe('A');
  });

  it('answers the CORS preflight of the UI origin, and refuses other origins', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
      });
    const ok = await preflight(UI);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    expect(ok.headers.get('access-control-allow-headers')).toBe('Content-Type, X-Namespace, Authorization');
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST');
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await preflight('http://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('requires the bearer token when one is set: missing or wrong gets 401', async () => {
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload('x')]);
    const body = [payloadToJson(encrypted)];
    expect((await post(secured.url, '/decode', body)).status).toBe(401);
    const wrong = await post(secured.url, '/decode', body, { Authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    expect((await post(secured.url, '/decode', body, { Authorization: 'Bearer s3cret' })).status).toBe(200);
  });

  it('answers bad requests and undecodable payloads with a one-line JSON error', async () => {
    const bad = await fetch(`${server.url}/decode`, { method: 'POST', body: 'nope' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/not JSON/);
    const [other] = await new EncryptionCodec(parseEncryptionKeys(`Z:${randomBytes(32).toString('base64')}`)).encode([defaultPayloadConverter.toPayload('x')]);
    const unknown = await post(server.url, '/decode', [payloadToJson(other)]);
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { error: string }).error).toContain('key "Z"');
    expect((await fetch(`${server.url}/nothing`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('answers only to its own host names: a rebinding name is refused whatever the token', async () => {
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload('secret')]);
    const body = JSON.stringify({ payloads: [payloadToJson(encrypted)] });
    const port = new URL(secured.url).port;
    const decode = (host: string) =>
      new Promise<{ status: number; body: string }>((done, fail) => {
        const req = request(`${secured.url}/decode`, { method: 'POST', headers: { host, authorization: 'Bearer s3cret', 'content-type': 'application/json', origin: UI } }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', fail);
        req.end(body);
      });
    const rebound = await decode(`attacker.example:${port}`);
    expect([rebound.status, JSON.parse(rebound.body)]).toEqual([403, { error: `requests for host "attacker.example:${port}" are refused: this server answers only to its own names (add one with --allowed-host NAME)` }]);
    expect(rebound.body).not.toContain(Buffer.from(JSON.stringify('secret')).toString('base64'));
    expect((await decode(`localhost:${port}`)).status).toBe(200);
    const named = await startCodecServer({ keyring, port: 0, uiOrigins: [UI], allowedHosts: ['codec.example.com'] });
    try {
      const r = await fetch(`${named.url}/decode`, { method: 'POST', body: '{"payloads":[]}' });
      expect([r.status, r.headers.get('x-content-type-options'), r.headers.get('x-frame-options')]).toEqual([200, 'nosniff', 'DENY']);
    } finally {
      await named.close();
    }
  });

  it('refuses to listen off loopback without a token', async () => {
    await expect(startCodecServer({ keyring, port: 0, host: '0.0.0.0', uiOrigins: [UI] })).rejects.toThrow(/^--host 0\.0\.0\.0 would let anyone who reaches it decrypt payloads: set --token T \(or PERFLOW_CODEC_TOKEN\)/);
  });
});
