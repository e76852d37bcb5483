/** Every command of a checkout's CLI (`node bin/perflow.js`) as a user starts it: see test/support/commands-as-started.ts. */
import { resolve } from 'node:path';
import { useCli } from '../../support/cli';
import { describeCommandsAsStarted, SMOKE_ENCRYPTION_KEY } from '../../support/commands-as-started';

jest.setTimeout(240_000);

const cli = useCli('cli-commands');

describeCommandsAsStarted(() => ({
  command: process.execPath,
  prefix: [resolve(__dirname, '../../../bin/perflow.js')],
  env: { ...process.env, ...cli.env, PERFLOW_TASK_QUEUE: `${cli.harness.taskQueue}-cli-worker`, PERFLOW_ENCRYPTION_KEYS: SMOKE_ENCRYPTION_KEY },
}));
