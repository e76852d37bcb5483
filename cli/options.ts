/** The command line's options: one set for every command, parsed strictly. */
import { parseArgs } from 'node:util';
import { PerflowError } from '../client/errors';

const OPTIONS = {
  agent: { type: 'string' },
  question: { type: 'string' },
  'memory-id': { type: 'string' },
  'on-busy': { type: 'string' },
  webhook: { type: 'string' },
  param: { type: 'string', multiple: true },
  follow: { type: 'boolean' },
  wait: { type: 'boolean' },
  json: { type: 'boolean' },
  status: { type: 'string' },
  out: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  force: { type: 'boolean' },
  history: { type: 'string' },
  'workflow-id': { type: 'string' },
  workflows: { type: 'string' },
  to: { type: 'string' },
  reason: { type: 'string' },
  tenant: { type: 'string' },
  fingerprint: { type: 'string' },
  step: { type: 'string', multiple: true },
  'steps-file': { type: 'string' },
  stop: { type: 'boolean' },
  input: { type: 'string' },
  by: { type: 'string' },
  usd: { type: 'string' },
  'usd-per-day': { type: 'string' },
  'from-step': { type: 'string' },
  from: { type: 'string' },
  port: { type: 'string' },
  http: { type: 'string' },
  host: { type: 'string' },
  'ui-origin': { type: 'string', multiple: true },
  token: { type: 'string' },
  tokens: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'unsafe-no-token': { type: 'boolean' },
  default: { type: 'string' },
  'allow-inline-agents': { type: 'boolean' },
  agents: { type: 'string' },
  'nexus-agents': { type: 'string' },
  deployment: { type: 'string' },
  'build-id': { type: 'string' },
  concurrency: { type: 'string' },
  'min-pass': { type: 'string' },
  'failed-check': { type: 'string' },
  'score-below': { type: 'string' },
  junit: { type: 'string' },
  cron: { type: 'string' },
  every: { type: 'string' },
  at: { type: 'string' },
  timezone: { type: 'string' },
  overlap: { type: 'string' },
  'catchup-window': { type: 'string' },
  'pause-on-failure': { type: 'boolean' },
  'same-memory': { type: 'boolean' },
  note: { type: 'string' },
  schedule: { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A command's options and positional arguments; an unknown option or a missing value is one line (exit 2). */
export function parseCommandLine(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new PerflowError('invalid', `${(err as Error).message} (perflow --help)`);
  }
}

export type Options = ReturnType<typeof parseCommandLine>['values'];
