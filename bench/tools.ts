/** The benchmark's tool: returns as many bytes as asked, so tool output size is a parameter. */
import { z } from 'zod';
import { defineTool } from '../workers/main';

export const blobTool = defineTool({
  type: 'BlobTool',
  description: 'Returns that many bytes.',
  input: z.object({ bytes: z.number() }),
  run: async ({ bytes }) => 'x'.repeat(bytes),
});
