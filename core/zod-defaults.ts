/**
 * zod with its defaults set. zod records its default locale and memoizer in a global config
 * when it builds its first schema; workflows share zod (SHARED_WORKFLOW_MODULES in
 * workers/workflow-source.ts) and the SDK freezes that shared state once loaded, so a workflow
 * building the first schema could not record them. Loading this module builds one first.
 */
import { z } from 'zod';

z.object({ defaults: z.string() });
