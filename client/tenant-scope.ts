/**
 * Tenants as an access boundary: a caller scoped to one tenant sees and acts on that tenant's
 * runs, memories, events, decisions, forks and evals only; anything else answers as if it did
 * not exist (`not_found`, the same line an unknown ID gets), so existence is not revealed. An
 * operator (no tenant) sees every tenant's. The console scopes each token so (`--tokens FILE`).
 */
import type { Client } from '@temporalio/client';
import { evalTenant } from '../stores/evals';
import { isNotFound, PerflowError } from './errors';
import { withMemory, type StoresClient } from './stores';

/** Whose runs a caller may see: one tenant's, or (`tenant` undefined) every tenant's. */
export interface TenantScope {
  tenant?: string;
}

/** The operator's scope: every tenant. */
export const OPERATOR: TenantScope = {};

const noRun = (client: Client, id: string) => new PerflowError('not_found', `no run ${id} in namespace ${client.options.namespace}`);

/**
 * Refuses (`not_found`, as an unknown ID) a run outside the scope: one of another tenant, or of
 * none when the scope is a tenant's. The run's tenant is its memo's (set when it was started).
 */
export async function checkRunScope(client: Client, workflowId: string, scope: TenantScope): Promise<void> {
  if (scope.tenant === undefined) return;
  const { memo } = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((err: unknown) => Promise.reject(isNotFound(err) ? noRun(client, workflowId) : err));
  if (memo?.tenant_id !== scope.tenant) throw noRun(client, workflowId);
}

/**
 * Refuses (`not_found`) an eval outside the scope: its tenant is its memo's while Temporal knows
 * it, else its saved document's.
 */
export async function checkEvalScope(perflow: StoresClient & { client: Client }, evalId: string, scope: TenantScope): Promise<void> {
  if (scope.tenant === undefined) return;
  const noEval = new PerflowError('not_found', `no eval ${evalId}`);
  let tenant: unknown;
  try {
    tenant = (await perflow.client.workflow.getHandle(evalId).describe()).memo?.tenant_id;
  } catch (err) {
    if (!isNotFound(err)) throw err;
    tenant = (await withMemory(perflow, (memory) => evalTenant(memory, evalId)))?.tenant_id;
  }
  if (tenant !== scope.tenant) throw noEval;
}

/**
 * The run parameters a scoped caller starts with: its tenant's, whatever `tenant_id` they name
 * (a tenant cannot start runs for another); an operator's as given.
 */
export function paramsInScope(params: Record<string, unknown>, scope: TenantScope): Record<string, unknown> {
  return scope.tenant === undefined ? params : { ...params, tenant_id: scope.tenant };
}
