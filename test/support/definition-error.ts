import { AgentDefinitionError } from '../../core/agent';

/** The AgentDefinitionError `fn` throws; fails the test when it throws none. */
export function errorOf(fn: () => unknown): AgentDefinitionError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AgentDefinitionError) return e;
    throw e;
  }
  throw new Error('expected an AgentDefinitionError');
}
