/**
 * `llm_response_filter`: a JSONPath over a provider's raw response that selects the answer
 * text (the seed's parameter). Applied when an agent sets a filter other than its interface's
 * default; the defaults select what the providers already return.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { JSONPath } from 'jsonpath-plus';

/** The answer text at `path` in `raw`; a path that selects nothing fails the call (non-retryable) naming the path. */
export function applyResponseFilter(raw: unknown, path: string, iface: string): string {
  let selected: unknown[];
  try {
    selected = JSONPath({ path, json: raw as object, wrap: true }) as unknown[];
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`llm_response_filter "${path}" is not a valid JSONPath: ${(err as Error).message}`, 'Llm.ResponseFilter');
  }
  const value = selected.find((v) => v !== undefined && v !== null);
  if (value === undefined) {
    throw ApplicationFailure.nonRetryable(`llm_response_filter "${path}" selects nothing in the ${iface} response`, 'Llm.ResponseFilter');
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}
