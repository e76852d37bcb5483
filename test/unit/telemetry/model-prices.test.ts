import { calcPrice } from '@pydantic/genai-prices';
import { chat } from '../../../activities/llm/chat';
import { parseAgentDefinition } from '../../../core/agent';
import { ModelConfig } from '../../../core/agent-file/model';
import { addCost, addUsage, ZERO_USAGE } from '../../../core/llm-types';
import { agentFromJson } from '../../../client/run';
import { budgetPriceProblem, costOf, priceSource, priceTableProvider, setOperatorPrices, tenantCostOf, tenantPriceProblem, unpricedModelsNote, withCost } from '../../../telemetry/model-prices';
import { modelPricesFromEnv } from '../../../config/env';

const M = 1_000_000;
const tableCost = (model: string, provider: string, usage: Record<string, number>) => calcPrice(usage, model, { providerId: provider })!.total_price;

describe('what a model call costs', () => {
  it('prices OpenAI and Bedrock models from the price table by interface and model ID', () => {
    expect(priceTableProvider('openai/v1/chat/completions')).toBe('openai');
    expect(priceTableProvider('bedrock/converse/claude')).toBe('aws');
    expect(priceTableProvider('bedrock/converse/deepseek_r1')).toBe('aws');
    expect(priceTableProvider('scripted')).toBeUndefined();

    const gpt = { interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini' };
    expect(costOf(gpt, { input_tokens: 1200, output_tokens: 300 })).toBeCloseTo(tableCost('gpt-4o-mini', 'openai', { input_tokens: 1200, output_tokens: 300 }), 12);
    // gpt-4o-mini: $0.15 in and $0.60 out per million tokens in the table of the installed version.
    expect(costOf(gpt, { input_tokens: M, output_tokens: M })).toBeCloseTo(0.75, 9);
    expect(priceSource(gpt)).toEqual({ from: 'price table', provider: 'openai', model: 'gpt-4o-mini' });

    // Bedrock model IDs, with and without a cross-region inference prefix.
    for (const model of ['anthropic.claude-3-5-sonnet-20240620-v1:0', 'us.anthropic.claude-3-5-sonnet-20240620-v1:0']) {
      const claude = { interface: 'bedrock/converse/claude', model };
      expect(costOf(claude, { input_tokens: 1000, output_tokens: 100 })).toBeCloseTo(tableCost(model, 'aws', { input_tokens: 1000, output_tokens: 100 }), 12);
      expect(costOf(claude, { input_tokens: 1000, output_tokens: 100 })).toBeGreaterThan(0);
    }
    const r1 = { interface: 'bedrock/converse/deepseek_r1', model: 'us.deepseek.r1-v1:0' };
    expect(costOf(r1, { input_tokens: 500, output_tokens: 50 })).toBeCloseTo(tableCost('us.deepseek.r1-v1:0', 'aws', { input_tokens: 500, output_tokens: 50 }), 12);
    expect(priceSource(r1)).toMatchObject({ from: 'price table', provider: 'aws' });

    // Cached input tokens at the table's cache-read price.
    expect(costOf(gpt, { input_tokens: M, output_tokens: 0, cached_input_tokens: M / 2 })).toBeCloseTo(
      tableCost('gpt-4o-mini', 'openai', { input_tokens: M, cache_read_tokens: M / 2, output_tokens: 0 }),
      12,
    );
  });

  it('prices a model by the agent file’s price instead of the table, the scripted model included', () => {
    const price = { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3 };
    expect(costOf({ interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini', price }, { input_tokens: 2000, output_tokens: 100 })).toBeCloseTo(0.0075, 12);
    expect(costOf({ interface: 'scripted', price }, { input_tokens: 2000, output_tokens: 100, cached_input_tokens: 1000 })).toBeCloseTo((1000 * 3 + 1000 * 0.3 + 100 * 15) / M, 12);
    // Without a cached price, cached tokens cost the input price.
    expect(costOf({ interface: 'scripted', price: { input_per_million: 1, output_per_million: 2 } }, { input_tokens: 10, output_tokens: 5, cached_input_tokens: 4 })).toBeCloseTo(20 / M, 12);
    expect(priceSource({ interface: 'scripted', price })).toEqual({ from: 'agent file' });
    expect(costOf({ interface: 'scripted', price }, { input_tokens: 0, output_tokens: 0 })).toBe(0);
  });

  it('has no cost (null, never 0) for a model neither the table nor the file prices, and names such models in one line', () => {
    const local = { interface: 'openai/v1/chat/completions', model: 'my-local-llama' };
    expect(costOf(local, { input_tokens: 100, output_tokens: 10 })).toBeNull();
    expect(costOf({ interface: 'scripted' }, { input_tokens: 100, output_tokens: 10 })).toBeNull();
    expect(priceSource(local)).toBeNull();
    expect(withCost({ interface: 'scripted' }, { input_tokens: 1, output_tokens: 2 })).toEqual({ input_tokens: 1, output_tokens: 2, cost_usd: null });

    expect(unpricedModelsNote([{ interface: 'openai/v1/chat/completions', model: 'gpt-4o' }, { interface: 'scripted', price: { input_per_million: 1, output_per_million: 1 } }])).toBeUndefined();
    const note = unpricedModelsNote([local, { interface: 'scripted' }, local]);
    expect(note).toBe('no price known for model "my-local-llama": cost is null (give its llm block "price": {"input_per_million": N, "output_per_million": N})');
    // The scripted model calls no provider: nothing to pay, no note (its cost is null all the same).
    expect(unpricedModelsNote([{ interface: 'scripted' }])).toBeUndefined();
    expect(note).not.toContain('\n');
  });

  it('max_cost_usd needs every model priced (the scripted one too), else the run is refused in one line', () => {
    const priced = { interface: 'scripted', price: { input_per_million: 1, output_per_million: 1 } };
    expect(budgetPriceProblem([{ interface: 'openai/v1/chat/completions', model: 'gpt-4o' }, priced])).toBeUndefined();
    expect(budgetPriceProblem([priced, { interface: 'scripted' }])).toBe(
      'max_cost_usd needs every model\'s price, and none is known for model "scripted" (give its llm block "price": {"input_per_million": N, "output_per_million": N})',
    );
    const agent = (llm: Record<string, unknown>) => ({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: [] }, ...llm } });
    expect(() => agentFromJson(agent({}), 'a.json', { max_cost_usd: 1 })).toThrow(/^a\.json: parameters\.max_cost_usd: max_cost_usd needs every model's price/);
    expect(agentFromJson(agent({ price: priced.price }), 'a.json', { max_cost_usd: '0.5', budget_action: 'stop' }).parameters).toMatchObject({ max_cost_usd: 0.5, budget_action: 'stop' });
    expect(() => agentFromJson(agent({ price: priced.price }), 'a.json', { max_cost_usd: 0 })).toThrow(/max_cost_usd: expected a positive number of US dollars/);
    expect(() => agentFromJson(agent({ price: priced.price }), 'a.json', { max_cost_usd: 1, budget_action: 'wait' })).toThrow(/budget_action: expected pause, stop or fail/);
    // No budget: an unpriced model is only a note.
    expect(agentFromJson(agent({}), 'a.json').parameters.max_cost_usd).toBeUndefined();
  });

  it('the agent file’s price is checked: dollars per million tokens, input and output required', () => {
    const parse = (price: unknown) => ModelConfig.safeParse({ interface: 'scripted', script: { planner: [] }, price });
    expect(parse({ input_per_million: 1.5, output_per_million: 2, cached_input_per_million: 0.1 }).success).toBe(true);
    expect(parse({ input_per_million: 1 }).success).toBe(false);
    expect(parse({ input_per_million: -1, output_per_million: 1 }).success).toBe(false);
    expect(parse({ input_per_million: 1, output_per_million: 1, per_request: 1 }).success).toBe(false);
  });

  it('executor_llm inherits llm’s price for the same model only', () => {
    const price = { input_per_million: 1, output_per_million: 2 };
    const llm = { interface: 'openai/v1/chat/completions', model: 'mine', price };
    const agent = (executor_llm?: object) => parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm, ...(executor_llm ? { executor_llm } : {}) });
    expect(agent().executor_llm.price).toEqual(price);
    expect(agent({ model: 'mine', parameters: { temperature: 0 } }).executor_llm.price).toEqual(price);
    expect(agent({ model: 'other' }).executor_llm.price).toBeUndefined();
    expect(agent({ model: 'other', price: { input_per_million: 3, output_per_million: 4 } }).executor_llm.price).toEqual({ input_per_million: 3, output_per_million: 4 });
  });

  it('adds costs so that an unknown part makes the sum unknown', () => {
    expect(addCost(0.1, 0.2)).toBe(0.3);
    expect(addCost(0.1, null)).toBeNull();
    expect(addCost(null, 0.1)).toBeNull();
    // Usage recorded before costs were computed has none: unknown.
    expect(addCost(0.1, undefined)).toBeNull();
    const a = { input_tokens: 10, output_tokens: 1, cost_usd: 0.001 };
    const b = { input_tokens: 20, output_tokens: 2, cost_usd: 0.002 };
    expect(addUsage(addUsage(ZERO_USAGE, a), b)).toEqual({ input_tokens: 30, output_tokens: 3, cost_usd: 0.003 });
    expect(addUsage(addUsage(ZERO_USAGE, a), { input_tokens: 5, output_tokens: 5, cost_usd: null })).toEqual({ input_tokens: 15, output_tokens: 6, cost_usd: null });
    expect(addUsage(ZERO_USAGE, { input_tokens: 5, output_tokens: 5 })).toEqual({ input_tokens: 5, output_tokens: 5, cost_usd: null });
    expect(ZERO_USAGE.cost_usd).toBe(0);
    // Prompt-cache counts add up where a call reported them, and stay absent where none did.
    const cached = { input_tokens: 100, output_tokens: 1, cost_usd: 0.001, cached_input_tokens: 80 };
    expect(addUsage(addUsage(ZERO_USAGE, cached), { ...cached, cache_write_input_tokens: 20 })).toEqual({ input_tokens: 200, output_tokens: 2, cost_usd: 0.002, cached_input_tokens: 160, cache_write_input_tokens: 20 });
    expect(Object.keys(addUsage(a, b))).toEqual(['input_tokens', 'output_tokens', 'cost_usd']);
  });

  it('a model call’s usage carries its cost: the file’s price on a scripted model, null without one', async () => {
    const script = { planner: ['{"steps":[],"result":"done"}'], executor: [] };
    const request = { system: 's', messages: [{ role: 'user' as const, content: 'hello there' }], position: { role: 'planner' as const, call: 0 } };
    const priced = await chat({ interface: 'scripted', script, price: { input_per_million: 2, output_per_million: 8 } }, request, {});
    expect(priced.usage.cost_usd).toBeCloseTo((priced.usage.input_tokens * 2 + priced.usage.output_tokens * 8) / M, 12);
    expect(priced.usage.cost_usd).toBeGreaterThan(0);
    const unpriced = await chat({ interface: 'scripted', script }, request, {});
    expect(unpriced.usage.cost_usd).toBeNull();
  });
});

describe('what a call costs a capped tenant', () => {
  const gpt = { interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini' };
  const tokens = { input_tokens: 1_000_000, output_tokens: 1_000_000 };

  it('never less than the price table: an agent file price of 0 (or any lower one) does not escape the cap', () => {
    const table = costOf(gpt, tokens)!;
    expect(table).toBeGreaterThan(0);
    expect(tenantCostOf({ ...gpt, price: { input_per_million: 0, output_per_million: 0 } }, tokens)).toBe(table);
    expect(tenantCostOf({ ...gpt, price: { input_per_million: 0.01, output_per_million: 0.01 } }, tokens)).toBe(table);
    // A higher price of the agent file's counts as it is.
    expect(tenantCostOf({ ...gpt, price: { input_per_million: 100, output_per_million: 100 } }, tokens)).toBe(200);
  });

  it("is the agent file's price for a model the table does not know, and null for an unpriced one", () => {
    const local = { interface: 'openai/v1/chat/completions', model: 'my-local-llama' };
    expect(tenantCostOf({ ...local, price: { input_per_million: 1, output_per_million: 2 } }, tokens)).toBe(3);
    expect(tenantCostOf(local, tokens)).toBeNull();
  });
});

describe("the operator's prices (PERFLOW_MODEL_PRICES)", () => {
  const local = { interface: 'openai/v1/chat/completions', model: 'my-local-llama' };
  const tokens = { input_tokens: 1_000_000, output_tokens: 1_000_000 };
  afterEach(() => setOperatorPrices({}));

  it('price a model the table does not know, under an agent file price and over the table', () => {
    expect(costOf(local, tokens)).toBeNull();
    setOperatorPrices(modelPricesFromEnv({ PERFLOW_MODEL_PRICES: '{"my-local-llama": {"input_per_million": 2, "output_per_million": 3}}' }));
    expect(priceSource(local)).toEqual({ from: 'operator' });
    expect(costOf(local, tokens)).toBe(5);
    // The agent file's own price is the run's cost; a capped tenant pays the higher of the two.
    expect(costOf({ ...local, price: { input_per_million: 0, output_per_million: 0 } }, tokens)).toBe(0);
    expect(tenantCostOf({ ...local, price: { input_per_million: 0, output_per_million: 0 } }, tokens)).toBe(5);
  });

  it("refuse a capped tenant's model only the agent file prices; the scripted model's own price stands", () => {
    expect(tenantPriceProblem({ ...local, price: { input_per_million: 0, output_per_million: 0 } }, 'acme')).toMatch(/^model "my-local-llama" has no price the workers know, and tenant acme has a daily budget/);
    expect(tenantPriceProblem({ interface: 'openai/v1/chat/completions', model: 'gpt-4o-mini' }, 'acme')).toBeUndefined();
    expect(tenantPriceProblem({ interface: 'scripted' }, 'acme')).toBeUndefined();
    setOperatorPrices({ 'my-local-llama': { input_per_million: 1, output_per_million: 1 } });
    expect(tenantPriceProblem(local, 'acme')).toBeUndefined();
  });

  it.each([
    ['{', /^PERFLOW_MODEL_PRICES is not JSON \(/],
    ['[]', /^PERFLOW_MODEL_PRICES: expected a JSON object/],
    ['{"m": {"input_per_million": 1}}', /^PERFLOW_MODEL_PRICES: "m": /],
    ['{"m": {"input_per_million": -1, "output_per_million": 1}}', /^PERFLOW_MODEL_PRICES: "m": /],
  ])('refuse %s in one line naming the variable', (value, message) => {
    expect(() => modelPricesFromEnv({ PERFLOW_MODEL_PRICES: value })).toThrow(message);
  });
});
