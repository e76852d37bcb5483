/** What the console API is built from (console/server.ts gives it; api.ts and eval-routes.ts read it). */
import type { PerflowClient } from '../client';

export interface ApiOptions {
  /** The console's client: Temporal, the settings and its one MongoDB client. */
  perflow: PerflowClient;
  /** Every /api request must carry it (`Authorization: Bearer …`, or `?token=` for the event stream). */
  token?: string;
  /** Agent files and suites in request bodies; otherwise only the folder's, by name (403). */
  allowInlineAgents: boolean;
  /** Event streams served at once; beyond it 429. */
  maxEventStreams: number;
  /** The folder of the agent files the console offers. */
  agentsDir: string;
}
