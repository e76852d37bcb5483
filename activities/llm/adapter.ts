/**
 * A model adapter: what a provider's module under activities/llm/ declares so a worker can call
 * it — the pure spec core knows it by, its SDK clients built from the worker's provider settings,
 * one streaming chat call, and its errors as Temporal failures. The worker finds its adapters in
 * a registry (adapters.ts); `chat()` (chat.ts) calls them through it.
 */
import type { ApplicationFailure } from '@temporalio/activity';
import type { ChatRequest, ModelSettings } from '../../core/activity-contract';
import type { ModelInterfaceSpec } from '../../core/agent-file/llm-interfaces';
import type { ProviderConfig } from '../../core/provider-config';
import type { RawChatResponse } from '../../core/llm-types';
import type { OnDelta } from './call-options';
import type { ModelCallContext } from './errors';

export type { ModelInterfaceSpec, ModelCallContext };

/** What a worker hands its adapters. */
export interface AdapterContext {
  /** The worker's provider settings and secrets, read when asked. */
  providers: ProviderConfig;
  /** Where the scripted model records the requests it receives (tests read it). */
  recorder?: ChatRequest[];
}

/** One model call as an adapter receives it. */
export interface ModelCall {
  /** The agent file's model block: interface, model, base_url, region, parameters, … */
  model: ModelSettings;
  request: ChatRequest;
  /** When given, the provider streams and each answer text delta goes to it as it arrives; the response is the same. */
  onDelta?: OnDelta;
}

/** A model provider as a worker calls it. `Clients` is what `connect` builds and `chat` uses. */
export interface ModelAdapter<Clients = unknown> {
  /** What core knows of the interface: its name and aliases, default response filter, price-table provider, Axon Ivy model names. */
  readonly spec: ModelInterfaceSpec;
  /** Builds the adapter's clients for one worker, on its first call; they cache what they build per setting (a rotated key gets a new client). */
  connect(context: AdapterContext): Clients;
  /** Answers one call; the SDK's own retries are off, so Temporal's retry policy is the only one. */
  chat(clients: Clients, call: ModelCall): Promise<RawChatResponse>;
  /** What it throws, as the failure Temporal's retry policy reads (`ApplicationFailure`s pass through). @default thrown as it is */
  failure?(err: unknown, ctx: ModelCallContext): ApplicationFailure;
  /** Releases the clients' connections (worker shutdown). */
  close?(clients: Clients): void;
}
