/** The agent file's `scoring`: a sampled fraction of ended runs scored online by eval checks (core/scoring.ts). */
import { z } from 'zod';
import { EvalCheckSchema } from '../eval/suite';
import { MAX_SCORING_CHECKS, type ScoringConfig } from '../scoring';

/** `{"sample": 0.1, "checks": [...]}`: the fraction of runs scored, and the checks (the eval language's, judges included). */
export const ScoringSchema = z.strictObject(
  {
    sample: z.number({ error: 'expected the fraction of runs to score, a number from 0 to 1 (e.g. 0.1)' }).min(0, { error: 'must be from 0 to 1' }).max(1, { error: 'must be from 0 to 1' }),
    checks: z
      .array(EvalCheckSchema, { error: 'expected an array of eval checks, e.g. [{"judge": "The answer is polite"}]' })
      .min(1, { error: 'needs at least one check' })
      .max(MAX_SCORING_CHECKS, { error: `at most ${MAX_SCORING_CHECKS} checks` }),
  },
  { error: 'expected {"sample": 0.1, "checks": [...]}' },
) satisfies z.ZodType<ScoringConfig>;
