/**
 * Reading payloads straight from a history as the client's data converter does: through its
 * codecs (decryption, with PERFLOW_ENCRYPTION_KEYS) and then its payload converter.
 */
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { EncryptionCodec, FAILURE_CONVERTER_PATH, PayloadDecryptionError } from '../codec/encryption';

/** The values of `payloads`, decoded with the client's data converter. */
export async function decodePayloads(client: Client, payloads: readonly Payload[]): Promise<unknown[]> {
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let decoded = [...payloads];
  // Codecs decode in the reverse of their encoding order.
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return decoded.map((p) => payloadConverter.fromPayload(p));
}

/** The value of one payload, decoded with the client's data converter. */
export async function decodePayload(client: Client, payload: Payload): Promise<unknown> {
  return (await decodePayloads(client, [payload]))[0];
}

/**
 * The same client whose codecs turn a payload they cannot decrypt (its key is not configured
 * here) into the text `(encrypted with key "ID")` instead of failing: for reading many runs at
 * once (`list`), where another team's encrypted run must not hide the others. A client built
 * without perflow's codec (a Temporal client of one's own) gets it, keyless, for the listing.
 */
export function lenientClient(client: Client): Client {
  const own = client.options.loadedDataConverter.payloadCodecs;
  const codecs = own.length > 0 ? own : [new EncryptionCodec()];
  const dataConverter = { failureConverterPath: FAILURE_CONVERTER_PATH, payloadCodecs: codecs.map(lenient) };
  return new Client({ connection: client.connection, namespace: client.options.namespace, dataConverter });
}

function lenient(codec: PayloadCodec): PayloadCodec {
  return {
    encode: (payloads) => codec.encode(payloads),
    decode: (payloads) =>
      Promise.all(
        payloads.map(async (payload) => {
          try {
            return (await codec.decode([payload]))[0];
          } catch (err) {
            if (!(err instanceof PayloadDecryptionError)) throw err;
            return defaultPayloadConverter.toPayload(`(encrypted with key "${err.keyId ?? 'unknown'}")`);
          }
        }),
      ),
  };
}
