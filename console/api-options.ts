/** What the console API is built from (console/server.ts gives it; api.ts and eval-routes.ts read it). */
import type { PerflowClient } from '../client';
import type { TenantScope } from '../client/tenant-scope';
import type { ScopedToken } from './token-scopes';

/** What every route knows of its request: the scope of the token it carried. */
export type ApiEnv = { Variables: { scope: TenantScope } };

export interface ApiOptions {
  /** The console's client: Temporal, the settings and its one MongoDB client. */
  perflow: PerflowClient;
  /**
   * Every /api request must carry one (`Authorization: Bearer …`, or `?token=` for the event
   * stream), and sees what its scope lets it; absent: no token at all (`--unsafe-no-token`), every tenant.
   */
  tokens?: readonly ScopedToken[];
  /** Agent files and suites in request bodies; otherwise only the folder's, by name (403). */
  allowInlineAgents: boolean;
  /** Event streams served at once; beyond it 429. */
  maxEventStreams: number;
  /** The folder of the agent files the console offers. */
  agentsDir: string;
}
