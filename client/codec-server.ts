/**
 * The codec server of `perflow codec-server`: the HTTP endpoint the Temporal Web UI (and
 * `temporal` CLI) call to show encrypted payloads decrypted. Temporal's remote codec protocol:
 * `POST {endpoint}/decode` and `POST {endpoint}/encode` with the JSON body
 * `{ "payloads": [{ "metadata": { "key": "<base64>" }, "data": "<base64>" }] }` (proto3 JSON
 * of Payloads), answered in the same form; the UI adds an `X-Namespace` header and, when told
 * to, `Authorization`. Browsers call it cross-origin, so it answers CORS preflights for the UI's
 * origins only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Payload } from '@temporalio/common';
import { EncryptionCodec, PayloadDecryptionError } from '../codec/encryption';
import type { EncryptionKeyring } from '../core/encryption-keyring';
import { PerflowError } from './errors';
import { HttpError, httpAnswerOf } from './http-error';
import { listen } from './listen';
import { bearerToken, hostAllowList, isLoopbackHost, refusedHostMessage, securityHeaders, tokenMatches } from './listener-guard';

export interface CodecServerOptions {
  keyring: EncryptionKeyring;
  /** @default 8888; 0 picks a free port */
  port?: number;
  /** @default 127.0.0.1 (loopback: only this machine's browsers reach it) */
  host?: string;
  /** Origins allowed to call it from a browser (the Web UI's), e.g. `http://localhost:8233`. */
  uiOrigins: string[];
  /** When set, every request needs `Authorization: Bearer <token>` (else 401). Required off loopback. */
  token?: string;
  /** Listen off loopback without a token (a container whose port is published on the host's loopback only). */
  unsafeNoToken?: boolean;
  /** `Host` names served besides loopback names, IP addresses and `host`; any other gets 403 (DNS rebinding). */
  allowedHosts?: string[];
  /** Largest request body accepted. @default 16 MiB */
  maxBodyBytes?: number;
}

export interface CodecServer {
  /** The endpoint to give the UI, e.g. `http://127.0.0.1:8888`. */
  url: string;
  close(): Promise<void>;
}

/** The JSON form of a Payload in the codec protocol: metadata values and data in base64. */
export interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

const ALLOWED_HEADERS = 'Content-Type, X-Namespace, Authorization';
const SECURITY_HEADERS = securityHeaders();

/** Why a codec server off loopback without a token is refused: anyone who reaches it could decrypt every payload. */
export const CODEC_NEEDS_TOKEN = (host: string) =>
  `--host ${host} would let anyone who reaches it decrypt payloads: set --token T (or PERFLOW_CODEC_TOKEN), which the Web UI then sends`;

export function payloadFromJson(p: JsonPayload): Payload {
  if (typeof p !== 'object' || p === null) throw new PerflowError('invalid', 'each payload must be an object with metadata and data');
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) {
    if (typeof v !== 'string') throw new PerflowError('invalid', `payload metadata "${k}" must be a base64 string`);
    metadata[k] = new Uint8Array(Buffer.from(v, 'base64'));
  }
  if (p.data != null && typeof p.data !== 'string') throw new PerflowError('invalid', 'payload data must be a base64 string');
  return { metadata, data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')) };
}

export function payloadToJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

/** Starts the codec server; resolves once it listens. */
export async function startCodecServer(o: CodecServerOptions): Promise<CodecServer> {
  const boundHost = o.host ?? '127.0.0.1';
  if (!isLoopbackHost(boundHost) && o.token === undefined && !o.unsafeNoToken) throw new PerflowError('refused', CODEC_NEEDS_TOKEN(boundHost));
  const hostAllowed = hostAllowList(boundHost, o.allowedHosts);
  const codec = new EncryptionCodec(o.keyring);
  const origins = new Set(o.uiOrigins.map(normalizeOrigin));
  const maxBody = o.maxBodyBytes ?? 16 * 1024 * 1024;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    if (!hostAllowed(req.headers.host)) throw new PerflowError('refused', refusedHostMessage(req.headers.host));
    const origin = req.headers.origin;
    const allowed = origin !== undefined && origins.has(normalizeOrigin(origin));
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      if (!allowed) throw new PerflowError('refused', `origin ${origin ?? '(none)'} is not allowed: start the codec server with --ui-origin ${origin ?? 'URL'}`);
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://codec').pathname;
    const op = path.endsWith('/decode') ? 'decode' : path.endsWith('/encode') ? 'encode' : undefined;
    if (!op) throw new PerflowError('not_found', 'use POST /decode or POST /encode');
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} is not allowed: use POST /${op}`);
    if (origin !== undefined && !allowed) throw new PerflowError('refused', `origin ${origin} is not allowed: start the codec server with --ui-origin ${origin}`);
    if (o.token !== undefined && !tokenMatches(bearerToken(req.headers.authorization), o.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      throw new HttpError(401, 'a valid Authorization: Bearer token is required');
    }
    const body = await readJson(req, maxBody);
    const payloads = (body as { payloads?: unknown } | null)?.payloads;
    if (!Array.isArray(payloads)) throw new PerflowError('invalid', 'the body must be JSON {"payloads": [...]}');
    const input = payloads.map((p) => payloadFromJson(p as JsonPayload));
    let output: Payload[];
    try {
      output = op === 'decode' ? await codec.decode(input) : await codec.encode(input);
    } catch (err) {
      if (err instanceof PayloadDecryptionError) throw new HttpError(422, err.message);
      throw err;
    }
    send(res, 200, { payloads: output.map(payloadToJson) });
  };

  return listen(
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        const { status, message } = httpAnswerOf(err);
        const shown = status === 500 ? `codec error: ${message}` : message;
        if (status === 500) process.stderr.write(`perflow codec-server: ${shown}\n`);
        if (!res.headersSent) send(res, status, { error: shown });
        else res.end();
      });
    },
    { host: boundHost, port: o.port ?? 8888 },
  );
}

/** `http://localhost:8233/` and `http://localhost:8233` are one origin. */
function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpError(413, `the request body is larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new PerflowError('invalid', `the body is not JSON: ${(err as Error).message}`);
  }
}
