/** The console API's online scores: `GET /api/scores?agent=NAME[&since=7d][&by=fingerprint]`, pass rates per check and per agent version (docs/console.md). */
import type { Hono } from 'hono';
import { PerflowError } from '../client/errors';
import { parseSinceAgo, scoreSummary } from '../client/scores';
import type { ApiEnv, ApiOptions } from './api-options';

export function scoreRoutes(api: Hono<ApiEnv>, o: ApiOptions): void {
  api.get('/scores', async (c) => {
    const agent = c.req.query('agent') || undefined;
    const since = c.req.query('since') || undefined;
    const by = c.req.query('by') || 'fingerprint';
    if (by !== 'fingerprint' && by !== 'agent') throw new PerflowError('invalid', `by must be fingerprint or agent, got "${by}"`);
    // A tenant's token reads its tenant's scores only.
    const tenant = c.get('scope').tenant;
    const groups = await scoreSummary(o.perflow, { ...(agent ? { agent } : {}), ...(since ? { since: parseSinceAgo(since) } : {}), ...(tenant !== undefined ? { tenant } : {}), byFingerprint: by === 'fingerprint' });
    return c.json(groups);
  });
}
