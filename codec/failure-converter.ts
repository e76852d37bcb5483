/**
 * The failure converter of perflow's workers, their workflow bundles and clients (named by
 * `failureConverterPath`, as code in the workflow sandbox must be): a failure's message and stack
 * trace travel in its encoded attributes, a payload, so the encryption codec encrypts them with
 * PERFLOW_ENCRYPTION_KEYS as it does the failure's details. Without keys that payload is plain
 * JSON, which any reader decodes. The history's `message` field reads `Encoded failure`.
 *
 * Loaded into the workflow sandbox: import nothing but @temporalio/common here.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
