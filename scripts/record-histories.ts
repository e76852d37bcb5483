/**
 * Runs the scenarios of test/support/scenarios.ts against real servers and saves their event
 * histories as test/fixtures/histories/<name>.binpb.  Usage: npm run record-histories
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { startServers, stopServersOnSignals } from '../servers';
import { createHarness, runInput } from '../test/support/harness';
import { SCENARIOS } from '../test/support/scenarios';
import { TypedSearchAttributes } from '@temporalio/common';
import { planExecuteReflect, SearchAttributes } from '../workflows';

async function main(): Promise<void> {
  stopServersOnSignals();
  const servers = await startServers();
  process.env.TEMPORAL_ADDRESS = servers.temporal.address;
  process.env.MONGODB_URI = servers.mongo.uri;
  const harness = await createHarness();
  console.log(`recording on task queue ${harness.taskQueue}`);
  try {
    for (const scenario of SCENARIOS) {
      const handle = await harness.client.workflow.start(planExecuteReflect, {
        taskQueue: harness.taskQueue,
        workflowId: `history-${scenario.name}`,
        args: [runInput(scenario.agent, scenario.question, scenario.params)],
        // As `perflow run` starts runs, so histories hold what the workflow does with them.
        typedSearchAttributes: new TypedSearchAttributes([
          { key: SearchAttributes.agent, value: 'history' },
          { key: SearchAttributes.status, value: 'running' },
        ]),
      });
      const outcome = await handle.result().then(
        (out) => `completed: ${out.response.slice(0, 60)}`,
        (err: Error) => `failed: ${err.message}`,
      );
      if (outcome.startsWith('failed') !== Boolean(scenario.fails)) throw new Error(`${scenario.name} ${outcome}`);
      // Binary protobuf: exact, compact, and independent of the JSON mapping's quirks.
      const file = join(__dirname, '..', 'test', 'fixtures', 'histories', `${scenario.name}.binpb`);
      // A run that continued-as-new has one history per execution: <name>.run-<k>.binpb, oldest first.
      const runIds: string[] = [];
      for await (const w of harness.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runIds.unshift(w.runId);
      if (runIds.length <= 1) {
        writeFileSync(file, temporal.api.history.v1.History.encode(await handle.fetchHistory()).finish());
      } else {
        for (const [k, runId] of runIds.entries()) {
          const history = await harness.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
          writeFileSync(file.replace(/\.binpb$/, `.run-${k + 1}.binpb`), temporal.api.history.v1.History.encode(history).finish());
        }
      }
      console.log(`${scenario.name}: ${outcome} → ${file} (${Math.max(1, runIds.length)} execution(s))`);
      // The executor child workflows too: their code is replayed as well.
      for (let step = 1; ; step++) {
        const child = harness.client.workflow.getHandle(`history-${scenario.name}/step-${step}`);
        const history = await child.fetchHistory().catch(() => undefined);
        if (!history) break;
        const childFile = file.replace(/\.binpb$/, `.step-${step}.binpb`);
        writeFileSync(childFile, temporal.api.history.v1.History.encode(history).finish());
      }
    }
  } finally {
    await harness.close();
    await servers.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
