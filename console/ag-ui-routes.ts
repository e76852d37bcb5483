/**
 * AG-UI on the console (docs/ag-ui.md): `POST /api/ag-ui/AGENT` takes an AG-UI `RunAgentInput`,
 * starts the agent file's run (the last user message is the question; the thread is the
 * conversation) and answers with the run as AG-UI events (SSE) until RUN_FINISHED or RUN_ERROR;
 * `GET /api/runs/:id/ag-ui?from=N` follows any run as AG-UI from an event offset. Under the
 * console's token, tenant and origin rules, and its bound on streams served at once.
 */
import type { Context, Hono } from 'hono';
import { stream } from 'hono/streaming';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { BaseEvent } from '@ag-ui/core';
import { AgUiTranslator, type AgUiRun } from '../client/ag-ui';
import { PerflowError } from '../client/errors';
import { runInputOf } from '../client/fork';
import { HttpError } from '../client/http-error';
import { assertMemoryExists } from '../client/memory';
import { loadAgentFile, startRun } from '../client/run';
import { paramsInScope } from '../client/tenant-scope';
import { checkWorkerPolicy } from '../client/worker-policy';
import { watchRun } from '../client/watch';
import { firstLine } from '../core/text';
import type { ApiEnv, ApiOptions } from './api-options';
import { agentFiles, offeredFile } from './offered-files';
import { jsonOf, offsetOf } from './requests';

/** The event streams served at once, shared with the console's own event route. */
export interface StreamCount {
  open: number;
}

/** An AG-UI thread names the conversation: a memory ID of letters, digits and `_ . : -`. */
const THREAD_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export function agUiRoutes(api: Hono<ApiEnv>, o: ApiOptions, streams: StreamCount, inScope: (c: Context<ApiEnv>, id: string) => Promise<unknown>): void {
  const { perflow } = o;
  const { config, client } = perflow;

  api.post('/ag-ui/:agent', async (c) => {
    const parsed = RunAgentInputSchema.safeParse(await jsonOf(c));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PerflowError('invalid', `the body is not an AG-UI RunAgentInput: ${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const input = parsed.data;
    if (!THREAD_ID.test(input.threadId)) throw new PerflowError('invalid', `threadId "${input.threadId.slice(0, 50)}" cannot name a conversation: use 1 to 200 letters, digits, "_", ".", ":" or "-"`);
    const question = lastUserText(input.messages);
    if (question === undefined) throw new PerflowError('invalid', 'messages hold no user message with text: the last one is the question');
    const name = c.req.param('agent');
    const file = await offeredFile(o.agentsDir, name.endsWith('.json') ? name : `${name}.json`, 'agent', agentFiles);
    const params = paramsInScope({}, c.get('scope'));
    const { agent, parameters } = await loadAgentFile(file, params, { extraToolTypes: config.extraToolTypes, subAgentsWithin: o.agentsDir, ...(config.limits ? { limits: config.limits } : {}) });
    checkWorkerPolicy(agent, config);
    // The thread is the conversation: continued when it exists (in this tenant), else begun under its ID.
    const continues = await assertMemoryExists(perflow, input.threadId, parameters.tenant_id).then(
      () => true,
      (err: unknown) => (err instanceof PerflowError && err.kind === 'not_found' ? false : Promise.reject(err)),
    );
    const started = await startRun(perflow, { agent, parameters, question, ...(continues ? { memoryId: input.threadId } : { newMemoryId: input.threadId }) });
    return agUiStream(c, { threadId: input.threadId, runId: input.runId, workflowId: started.workflowId }, started.workflowId, 0);
  });

  api.get('/runs/:id/ag-ui', async (c) => {
    const id = c.req.param('id');
    await inScope(c, id);
    const from = offsetOf(c.req.query('from'), 'from') ?? 0;
    // The thread is the run's conversation.
    const memoryId = (await runInputOf(client, id)).ids?.memory_id;
    return agUiStream(c, { threadId: memoryId ?? id, runId: id, workflowId: id }, id, from);
  });

  /** The run's events as AG-UI over SSE (or AG-UI's protobuf framing when the client accepts only that). */
  function agUiStream(c: Context<ApiEnv>, run: AgUiRun, workflowId: string, from: number): Response {
    if (streams.open >= o.maxEventStreams) throw new HttpError(429, `this console serves at most ${o.maxEventStreams} event streams at once: close one and retry`);
    streams.open++;
    const encoder = new EventEncoder({ accept: c.req.header('accept') ?? 'text/event-stream' });
    c.header('content-type', encoder.getContentType());
    c.header('cache-control', 'no-cache');
    return stream(c, async (s) => {
      const stop = new AbortController();
      s.onAbort(() => stop.abort());
      const translator = new AgUiTranslator(run);
      const send = async (events: BaseEvent[]) => {
        for (const e of events) await s.write(encoder.getContentType() === 'text/event-stream' ? encoder.encodeSSE(e) : encoder.encodeBinary(e));
      };
      try {
        await send(translator.started());
        for await (const event of watchRun(perflow, workflowId, { from, signal: stop.signal })) {
          await send(translator.translate(event));
          if (translator.done) break;
        }
        if (!stop.signal.aborted) await send(translator.abandoned('the run\'s event stream ended before the run did'));
      } catch (err) {
        if (!stop.signal.aborted) await send(translator.abandoned(firstLine(err)));
      } finally {
        streams.open--;
      }
    });
  }
}

/** The text of the last user message (its text parts joined), or undefined without one. */
function lastUserText(messages: ReadonlyArray<{ role: string; content?: unknown }>): string | undefined {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return undefined;
  const text =
    typeof last.content === 'string'
      ? last.content
      : Array.isArray(last.content)
        ? last.content.flatMap((p: { type?: string; text?: string }) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('\n')
        : '';
  return text.trim() === '' ? undefined : text;
}
