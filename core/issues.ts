/** Zod issues as one-line, field-path messages. Pure module: safe to import from workflow code. */
import type { z } from 'zod';
import { oneLine } from './text';

/** One problem in an agent file or in run parameters. */
export interface AgentDefinitionIssue {
  /** Dotted field path, e.g. `parameters.max_steps` or `tools[0].type`; `(root)` for the whole. */
  path: string;
  /** What is wrong. */
  message: string;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(root)' : out;
}


/** Generic messages for issues that have no schema-specific one. */
export const fallbackError = (issue: z.core.$ZodRawIssue): string | undefined => {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'is required';
    const got = issue.input === null ? 'null' : Array.isArray(issue.input) ? 'array' : typeof issue.input;
    return `expected ${issue.expected}, received ${got}`;
  }
  return undefined;
};

export function toIssues(error: z.ZodError, pathPrefix: PropertyKey[] = []): AgentDefinitionIssue[] {
  const issues: AgentDefinitionIssue[] = [];
  for (const issue of error.issues) {
    const base = [...pathPrefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: formatPath([...base, key]), message: 'unknown field' });
      continue;
    }
    issues.push({ path: formatPath(base), message: oneLine(issue.message) });
  }
  return issues;
}

