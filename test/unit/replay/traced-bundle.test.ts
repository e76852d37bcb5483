/**
 * A worker started with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT) runs the workflow bundle with
 * the OpenTelemetry workflow interceptors: runs recorded without them must replay on it too
 * (a worker restarted with tracing picks up the runs in flight).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { temporal } from '@temporalio/proto';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WORKFLOW_TRACING_MODULES } from '../../../telemetry/worker';
import { workflowBundleOptions } from '../../../workers/workflow-source';

const dir = join(__dirname, '..', '..', 'fixtures', 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.binpb')).sort();
const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  bundle = await bundleWorkflowCode({ ...workflowBundleOptions(require.resolve('../../../workflows'), WORKFLOW_TRACING_MODULES), logger: quietLogger });
}, 60_000);

describe('the traced workflow bundle', () => {
  it('replays every recorded history deterministically, exporting no span while replaying', async () => {
    const spans = new InMemorySpanExporter();
    const sinks = { exporter: makeWorkflowExporter(new SimpleSpanProcessor(spans), new Resource({})) };
    const histories = files.map((file) => ({
      // As in recorded-histories.test.ts: the workflow ID the history was recorded under.
      workflowId: `history-${file.replace(/^before-[a-z-]+\./, '').replace(/\.binpb$/, '').replace(/\.run-\d+$/, '').replace(/\.((?:step|todo)-\d+)$/, '/$1')}`,
      history: temporal.api.history.v1.History.decode(readFileSync(join(dir, file))),
    }));
    const failed: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, sinks }, histories)) {
      if (result.error) failed.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failed).toEqual([]);
    expect(spans.getFinishedSpans()).toEqual([]);
  }, 120_000);
});
