/**
 * The benchmark's tool: returns as many bytes as asked, so tool output size is a parameter,
 * after `ms` milliseconds when given (a slow tool, for parallel steps).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool } from '../workers/main';

export const blobTool = defineTool({
  type: 'BlobTool',
  description: 'Returns that many bytes.',
  input: z.object({ bytes: z.number(), ms: z.number().int().min(0).max(60_000).optional() }),
  run: async ({ bytes, ms }) => {
    if (ms) await sleep(ms);
    return 'x'.repeat(bytes);
  },
});
