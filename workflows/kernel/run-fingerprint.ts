/**
 * A run on a versioned worker (a Worker Deployment build): its fingerprint names the build it
 * started on, set in its memo and `PerflowFingerprint` by the run itself, since only the worker
 * knows the build. Runs of unversioned workers keep the fingerprint their starter computed, and
 * their commands are unchanged (the patch is asked only on a versioned worker).
 */
import { patched, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { AgentDefinition, ResolvedParameters } from '../../core/agent';
import { fingerprintOf } from '../../core/fingerprint';
import { SearchAttributes } from './definitions';

export const FINGERPRINT_BUILD_PATCH = 'fingerprint-build-id';

export function fingerprintWithBuild(agent: AgentDefinition, parameters: ResolvedParameters, version: string | undefined): void {
  const build = workflowInfo().currentDeploymentVersion?.buildId;
  if (build === undefined || !patched(FINGERPRINT_BUILD_PATCH)) return;
  const f = fingerprintOf(agent, parameters, version, build);
  upsertMemo({ fingerprint: f.id, fingerprint_parts: f.parts });
  if (workflowInfo().typedSearchAttributes.get(SearchAttributes.fingerprint) !== undefined) upsertSearchAttributes([{ key: SearchAttributes.fingerprint, value: f.id }]);
}
