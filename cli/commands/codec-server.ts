/** `perflow codec-server`: decrypts payloads for the Temporal Web UI; serves until SIGINT/SIGTERM. */
import { startCodecServer } from '../../client/codec-server';
import { PerflowError } from '../../client/errors';
import { CODEC_NEEDS_TOKEN } from '../../client/codec-server';
import { checkedAllowedHost, isLoopbackHost } from '../../client/listener-guard';
import { codecTokenFromEnv } from '../../config/env';
import type { CommandHandler } from '../context';
import { answer, note } from '../output';

export const codecServer: CommandHandler = async ({ o, config, env }) => {
  if (!config.encryption) throw new PerflowError('invalid', 'codec-server needs PERFLOW_ENCRYPTION_KEYS (KEY_ID:BASE64_32_BYTES, comma-separated: the keys the workers encrypt with)');
  const port = o.port === undefined ? 8888 : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new PerflowError('invalid', `--port expects a port number (0 picks a free one), got "${o.port}"`);
  const host = o.host ?? '127.0.0.1';
  const uiOrigins = o['ui-origin'] ?? [new URL(config.uiUrl).origin];
  for (const origin of uiOrigins) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(origin)) throw new PerflowError('invalid', `--ui-origin expects the Web UI's origin such as http://localhost:8233, got "${origin}"`);
  }
  const token = o.token ?? codecTokenFromEnv(env);
  // A container binds 0.0.0.0 and publishes the port on the host's loopback: it says so by name.
  const unsafeNoToken = token === undefined && !isLoopbackHost(host) && o['unsafe-no-token'] === true;
  if (token === undefined && !isLoopbackHost(host) && !unsafeNoToken) throw new PerflowError('refused', `${CODEC_NEEDS_TOKEN(host)} (or, in a container whose port is published on the host's loopback only, --unsafe-no-token)`);
  if (unsafeNoToken) note(`perflow codec server: --unsafe-no-token on ${host}: whoever reaches this port can decrypt payloads; publish it on loopback only`);
  const allowedHosts = (o['allowed-host'] ?? []).map(checkedAllowedHost);
  const server = await startCodecServer({ keyring: config.encryption, port, host, uiOrigins, allowedHosts, ...(token !== undefined ? { token } : {}), ...(unsafeNoToken ? { unsafeNoToken } : {}) });
  const keyIds = [...config.encryption.keys.keys()];
  answer(o.json, { url: server.url, ui_origins: uiOrigins, key_ids: keyIds, token_required: token !== undefined }, () => [
    `perflow codec server: ${server.url} (keys ${keyIds.map((k) => `"${k}"`).join(', ')}; CORS for ${uiOrigins.join(', ')}${token !== undefined ? '; bearer token required' : ''})`,
    `Web UI: set the codec endpoint to ${server.url} (Settings → Codec Server, or temporal server start-dev --ui-codec-endpoint ${server.url})`,
  ]);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const stop = (sig: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  note(`perflow codec server: ${signal} received, stopped`);
  return 0;
};
