/**
 * A streamed Responses API call, and the failures a response reports itself (an `error` event,
 * `response.failed`, `response.incomplete`, or the same statuses of a plain call's response),
 * which arrive with HTTP 200 and so never reach the SDK's status classes.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { OnDelta } from './call-options';
import { openAiFailure, streamCutFailure, type ModelCallContext } from './errors';
import { openAiSdk } from './sdks';

type Response = OpenAI.Responses.Response;
type OutputItem = OpenAI.Responses.ResponseOutputItem;

/** The error codes a response or an `error` event may name: the failure kind and whether a later attempt may get past it. */
const ERROR_CODES: Record<string, [kind: string, retryable: boolean]> = {
  rate_limit_exceeded: ['RateLimit', true],
  server_error: ['InternalServer', true],
  vector_store_timeout: ['Timeout', true],
  insufficient_quota: ['Quota', false],
  invalid_prompt: ['BadRequest', false],
};

/** What a failed response or an `error` event says. */
export interface ResponseErrorReport {
  code?: string | null;
  message?: string | null;
}

/**
 * A failure the server reported in the response rather than as an HTTP status: classified by
 * its error code (rate limit and server error retryable; an invalid prompt, a too-long prompt and
 * the image and policy codes not); a code it does not know is retryable.
 *
 * @param where - how it was reported, named in the message: `mid-stream`, `response.failed`, …
 */
export function responseErrorFailure(error: ResponseErrorReport | null | undefined, where: string, ctx: ModelCallContext): ApplicationFailure {
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const said = error?.message || 'no message';
  if (code === 'context_length_exceeded') {
    // The same one-line failure as the HTTP 400 that says so.
    return openAiFailure(new (openAiSdk().BadRequestError)(400, { code, message: said }, said, new Headers()), ctx);
  }
  const known = code !== undefined ? ERROR_CODES[code] : undefined;
  // The enum's other codes (images, data residency, policy) are the request's own: no attempt gets past them.
  const [kind, retryable] = known ?? (code === undefined || !/^(invalid_|image_|unsupported_|empty_|failed_to_|data_residency|bio_policy)/.test(code) ? ['Unknown', true] : ['BadRequest', false]);
  return ApplicationFailure.create({
    type: `OpenAI.${kind}`,
    message: `${ctx.interface} model "${ctx.model ?? '(default)'}" failed ${where} (${code ?? 'error'}): ${said}`,
    nonRetryable: !retryable,
  });
}

/**
 * A response that stopped before its answer was complete: the output-token limit or the content
 * filter, which another attempt of the same request would reach again.
 */
export function incompleteFailure(response: Pick<Response, 'incomplete_details'>, ctx: ModelCallContext): ApplicationFailure {
  const reason = response.incomplete_details?.reason ?? 'unknown reason';
  const fix = reason === 'max_output_tokens' ? ': raise llm.parameters.max_output_tokens (reasoning counts against it)' : '';
  return ApplicationFailure.create({
    type: 'OpenAI.Incomplete',
    message: `${ctx.interface} model "${ctx.model ?? '(default)'}" stopped before the answer was complete (${reason})${fix}`,
    nonRetryable: true,
  });
}

/** The response as the plain call returns it, or the failure it reports (`failed`, `incomplete`). */
export function settledResponse(response: Response, ctx: ModelCallContext): Response {
  if (response.status === 'failed') throw responseErrorFailure(response.error, 'with response.failed', ctx);
  if (response.status === 'incomplete') throw incompleteFailure(response, ctx);
  return response;
}

/** The answer text of a response's message items, as the SDK's `output_text` has it. */
export function outputText(output: readonly OutputItem[]): string {
  return output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((c) => (c.type === 'output_text' ? [c.text] : [])) : [])).join('');
}

/**
 * The output items as the stream built them: each item's `output_item.done` replaces what its
 * `added` and deltas made, and an item the stream never finished keeps its deltas.
 */
class OutputItems {
  readonly items: OutputItem[] = [];

  added(index: number, item: OutputItem): void {
    this.items[index] = structuredClone(item);
  }

  text(index: number, contentIndex: number, delta: string): void {
    const item = this.items[index];
    const part = item?.type === 'message' ? item.content[contentIndex] : undefined;
    if (part?.type === 'output_text') part.text += delta;
  }

  arguments(index: number, delta: string, whole?: string): void {
    const item = this.items[index];
    if (item?.type === 'function_call') item.arguments = whole ?? item.arguments + delta;
  }

  list(): OutputItem[] {
    return this.items.filter(Boolean);
  }
}

/**
 * Streams one response, handing every answer text delta to `onDelta` as it arrives; returns
 * the response `response.completed` gives (its output from the streamed items when a
 * compatible server leaves it empty), with `output_text` as the plain call's.
 *
 * @throws ApplicationFailure on an `error` event, `response.failed`, `response.incomplete`, or a stream that ends without `response.completed`
 */
export async function streamResponse(
  client: OpenAI,
  body: OpenAI.Responses.ResponseCreateParamsNonStreaming,
  options: { signal?: AbortSignal; timeout: number },
  onDelta: OnDelta,
  ctx: ModelCallContext,
): Promise<Response> {
  const stream = await client.responses.create({ ...body, stream: true }, options);
  const items = new OutputItems();
  let completed: Response | undefined;
  for await (const event of stream) {
    switch (event.type) {
      case 'response.output_item.added':
      case 'response.output_item.done':
        items.added(event.output_index, event.item);
        break;
      case 'response.content_part.added':
        if (event.part.type === 'output_text') {
          const item = items.items[event.output_index];
          if (item?.type === 'message') item.content[event.content_index] = { ...event.part, text: '' };
        }
        break;
      case 'response.output_text.delta':
        items.text(event.output_index, event.content_index, event.delta);
        onDelta(event.delta);
        break;
      case 'response.function_call_arguments.delta':
        items.arguments(event.output_index, event.delta);
        break;
      case 'response.function_call_arguments.done':
        items.arguments(event.output_index, '', event.arguments);
        break;
      case 'error':
        throw responseErrorFailure(event, 'mid-stream', ctx);
      case 'response.failed':
        throw responseErrorFailure(event.response.error, 'with response.failed', ctx);
      case 'response.incomplete':
        throw incompleteFailure(event.response, ctx);
      case 'response.completed':
        completed = event.response;
        break;
      default:
        break;
    }
  }
  // The SDK ends the iteration quietly when the request is aborted.
  if (options.signal?.aborted) throw new (openAiSdk().APIUserAbortError)();
  // A stream that ends before response.completed was cut (by a proxy, a restart) without an error.
  if (!completed) throw streamCutFailure('OpenAI', ctx);
  const output = completed.output?.length ? completed.output : items.list();
  return { ...completed, output, output_text: outputText(output) };
}
