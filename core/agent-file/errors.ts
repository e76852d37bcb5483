/** Why an agent file or run parameters were rejected: every problem, on one line. */
import type { AgentDefinitionIssue } from '../issues';

export type { AgentDefinitionIssue };

/** An agent file or run parameters failed validation. The message lists every bad field on one line. */
export class AgentDefinitionError extends Error {
  /** Every problem found, in schema order. */
  readonly issues: AgentDefinitionIssue[];

  constructor(issues: AgentDefinitionIssue[], prefix = 'invalid agent file') {
    super(`${prefix}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'AgentDefinitionError';
    this.issues = issues;
  }
}
