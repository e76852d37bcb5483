/**
 * A worker started with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT) runs the workflow bundle with
 * the OpenTelemetry workflow interceptors: runs recorded without them must replay on it too
 * (a worker restarted with tracing picks up the runs in flight).
 */
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import { inWorkflowThread, recordedHistories } from '../../support/replay';
import { REPLAY_SINKS } from '../../../workers/workflow-source';
import { workflowBundle } from '../../support/workflow-bundles';

let bundle: { code: string };
beforeAll(async () => {
  bundle = await workflowBundle('traced');
}, 60_000);

describe('the traced workflow bundle', () => {
  it('replays every recorded history deterministically, exporting no span while replaying', async () => {
    const spans = new InMemorySpanExporter();
    const sinks = { ...REPLAY_SINKS, exporter: makeWorkflowExporter(new SimpleSpanProcessor(spans), new Resource({})) };
    const failed: string[] = [];
    for await (const result of Worker.runReplayHistories(inWorkflowThread({ workflowBundle: bundle, sinks }), recordedHistories())) {
      if (result.error) failed.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failed).toEqual([]);
    expect(spans.getFinishedSpans()).toEqual([]);
  }, 120_000);
});
