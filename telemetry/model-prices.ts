/**
 * What a model call costs in US dollars: the agent file's `price` of the model when it gives one,
 * else the price table of `@pydantic/genai-prices` (the prices bundled with the installed
 * version: it fetches nothing, and perflow never turns on its `updatePrices` auto-update, so
 * the prices change only when the package is upgraded). The model calls' activities compute
 * each call's cost; the client asks the same lookup whether a run's models have a price at all.
 * I/O-free: no network, no files.
 */
import type { ModelPrice } from '../core/agent-file/model';
import { knownInterface } from '../core/agent-file/known-interfaces';
import type { Usage } from '../core/llm-types';

/** The parts of a model's settings its price depends on. */
export interface PricedModel {
  interface: string;
  model?: string;
  price?: ModelPrice;
}

/** Where a model's price comes from: the agent file's `price`, the operator's, the price table (naming its provider and model), or nowhere. */
export type PriceSource = { from: 'agent file' } | { from: 'operator' } | { from: 'price table'; provider: string; model: string } | null;

/** The prices the operator gives this process's workers (PERFLOW_MODEL_PRICES), by model name: over the table's. */
const operatorPrices = new Map<string, ModelPrice>();

/** Sets the operator's prices (`createWorker` gives the worker's), replacing earlier ones. */
export function setOperatorPrices(prices: Readonly<Record<string, ModelPrice>>): void {
  operatorPrices.clear();
  for (const [model, price] of Object.entries(prices)) operatorPrices.set(model, price);
}

const operatorPrice = (model: PricedModel): ModelPrice | undefined => (model.model !== undefined ? operatorPrices.get(model.model) : undefined);

/** Token counts a price applies to; the cache's tokens are part of `input_tokens` (see {@link Usage}). */
export type PricedTokens = Pick<Usage, 'input_tokens' | 'output_tokens' | 'cached_input_tokens' | 'cache_write_input_tokens'>;

/** The price table's provider of an interface, as its spec names it: OpenAI-compatible servers as OpenAI, Bedrock Converse as AWS Bedrock. */
export function priceTableProvider(modelInterface: string): string | undefined {
  return knownInterface(modelInterface)?.priceTableProvider;
}

function tableLookup(model: PricedModel, tokens: PricedTokens) {
  const provider = priceTableProvider(model.interface);
  if (provider === undefined || model.model === undefined) return null;
  const usage = {
    input_tokens: tokens.input_tokens,
    output_tokens: tokens.output_tokens,
    ...(tokens.cached_input_tokens ? { cache_read_tokens: tokens.cached_input_tokens } : {}),
    ...(tokens.cache_write_input_tokens ? { cache_write_tokens: tokens.cache_write_input_tokens } : {}),
  };
  try {
    // The table (~0.1 s to load) loads on the first lookup: a run of the scripted model or of priced models never needs it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { calcPrice } = require('@pydantic/genai-prices') as typeof import('@pydantic/genai-prices');
    return calcPrice(usage, model.model, { providerId: provider });
  } catch {
    // A price the table cannot apply (a malformed entry) is no price, not a failed model call.
    return null;
  }
}

/** The model's context window in tokens as the price table knows it (undefined: it does not). */
export function tableContextWindow(model: PricedModel): number | undefined {
  return tableLookup(model, { input_tokens: 0, output_tokens: 0 })?.model.context_window ?? undefined;
}

/** Where the model's price comes from, or null when neither the agent file nor the table prices it. */
export function priceSource(model: PricedModel): PriceSource {
  if (model.price) return { from: 'agent file' };
  if (operatorPrice(model)) return { from: 'operator' };
  const found = tableLookup(model, { input_tokens: 0, output_tokens: 0 });
  return found ? { from: 'price table', provider: found.provider.id, model: found.model.id } : null;
}

/**
 * The cost of one call's tokens in US dollars, or null when the model has no known price.
 * Never 0 for an unknown price: 0 means the tokens were free.
 */
export function costOf(model: PricedModel, tokens: PricedTokens): number | null {
  const price = model.price ?? operatorPrice(model);
  if (price) {
    // A given price has no cache-write rate: written tokens cost the input rate.
    const cached = Math.min(tokens.cached_input_tokens ?? 0, tokens.input_tokens);
    const dollars =
      ((tokens.input_tokens - cached) * price.input_per_million + cached * (price.cached_input_per_million ?? price.input_per_million) + tokens.output_tokens * price.output_per_million) / 1e6;
    return round(dollars);
  }
  const found = tableLookup(model, tokens);
  return found ? round(found.total_price) : null;
}

/**
 * Why a tenant with a daily cap cannot call the model: it has no price but the agent file's own
 * (which could say 0), neither the operator's nor the table's; undefined when it has one. The
 * scripted model calls no provider: its agent file's price stands.
 */
export function tenantPriceProblem(model: PricedModel, tenant: string): string | undefined {
  if (model.interface === 'scripted' || costOf({ ...model, price: undefined }, { input_tokens: 0, output_tokens: 0 }) !== null) return undefined;
  const name = model.model ?? model.interface;
  return `model "${name}" has no price the workers know, and tenant ${tenant} has a daily budget: its calls cannot be counted (an agent file's own price does not count for a capped tenant); price it for the workers with PERFLOW_MODEL_PRICES={"${name}": {"input_per_million": N, "output_per_million": N}}`;
}

/**
 * What a call costs a tenant with a daily cap: the agent file's price, but never less than the
 * operator's or the price table's for the same model (an agent file cannot price its calls below the operator's
 * table, e.g. at 0, to escape its tenant's cap). Null when neither prices the model.
 */
export function tenantCostOf(model: PricedModel, tokens: PricedTokens): number | null {
  const own = costOf(model, tokens);
  const table = model.price ? costOf({ ...model, price: undefined }, tokens) : own;
  return own === null ? table : table === null ? own : Math.max(own, table);
}

/** The usage with its cost: unknown (null) when the call reported no tokens, whatever the price. */
export function withCost(model: PricedModel, usage: Usage): Usage {
  return { ...usage, cost_usd: usage.tokens_unknown ? null : costOf(model, usage) };
}

/** Rounded to 1e-12 dollars (floating-point residue of per-million prices). */
function round(dollars: number): number {
  return Math.round(dollars * 1e12) / 1e12;
}

/**
 * The one-line note `run` prints when models of the agent file have no known price (their cost is
 * null), or undefined when all have one. The scripted model is left out: it calls no provider,
 * so there is nothing to pay (its cost is null all the same unless its block has a price).
 */
export function unpricedModelsNote(models: readonly (PricedModel | undefined)[]): string | undefined {
  const real = models.filter((m): m is PricedModel => m !== undefined && m.interface !== 'scripted');
  const unpriced = [...new Set(real.filter((m) => priceSource(m) === null).map((m) => m.model ?? m.interface))];
  if (unpriced.length === 0) return undefined;
  const names = unpriced.map((n) => `"${n}"`).join(', ');
  return `no price known for model ${names}: cost is null (give its llm block "price": {"input_per_million": N, "output_per_million": N})`;
}

/**
 * Why a run cannot have a dollar budget (`max_cost_usd`): the models of the agent file with no
 * known price, the scripted model included (its cost is null without a `price`); undefined when
 * every model has one.
 */
export function budgetPriceProblem(models: readonly (PricedModel | undefined)[]): string | undefined {
  const unpriced = [...new Set(models.filter((m): m is PricedModel => m !== undefined && priceSource(m) === null).map((m) => m.model ?? m.interface))];
  if (unpriced.length === 0) return undefined;
  const names = unpriced.map((n) => `"${n}"`).join(', ');
  return `max_cost_usd needs every model's price, and none is known for model ${names} (give its llm block "price": {"input_per_million": N, "output_per_million": N})`;
}
