import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from '../../../codec/encryption';
import { lenientClient } from '../../../client/payloads';
import { parseEncryptionKeys } from '../../../config/env';

describe('listing runs with a lenient client', () => {
  it("reads another team's encrypted payload as a placeholder, even through a Temporal client built without perflow's codec", async () => {
    const sealed = await new EncryptionCodec(parseEncryptionKeys(`theirs:${randomBytes(32).toString('base64')}`)).encode([defaultPayloadConverter.toPayload({ question: 'secret' })]);
    const plain = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    expect(plain.options.loadedDataConverter.payloadCodecs).toEqual([]);
    const [codec] = lenientClient(plain).options.loadedDataConverter.payloadCodecs;
    const [read] = await codec!.decode(sealed);
    expect(defaultPayloadConverter.fromPayload(read!)).toBe('(encrypted with key "theirs")');
  });
});
