/** A run's fingerprint: stable over what does not shape behaviour, moved by each part that does. */
import { canonicalJson, fingerprintDifference, fingerprintOf, fnv1a64 } from '../../../core/fingerprint';
import { parseAgentDefinition } from '../../../core/agent';

const agent = (over: Record<string, unknown> = {}) =>
  parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'scripted', script: { planner: ['{"steps":[],"result":"x"}'] } }, tools: [{ type: 'CalculatorTool' }], ...over });

describe('a run\'s fingerprint', () => {
  it('hashes canonical JSON: key order does not matter, FNV-1a 64 as published', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined, e: null }] })).toBe('{"a":[{"d":2,"e":null}],"b":1}');
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    // The published definition, in BigInt, over texts with every kind of code unit.
    const reference = (text: string) => {
      let h = 0xcbf29ce484222325n;
      for (let i = 0; i < text.length; i++) h = ((h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n) & ((1n << 64n) - 1n);
      return h.toString(16).padStart(16, '0');
    };
    for (const text of ['foobar', 'planner prompt ⟦earlier steps: 3⟧ – ünïcødé 🚀', '\uffff\u0000'.repeat(50), JSON.stringify({ steps: Array.from({ length: 200 }, (_, i) => `step ${i}`) })]) {
      expect(fnv1a64(text)).toBe(reference(text));
    }
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });

  it('is the same whatever the question, memory, tenant or price; each other part moves its own hash', () => {
    const base = fingerprintOf(agent(), { max_steps: 20, system_prompt: 'plan', memory_id: 'm1', tenant_id: 't1' }, '0.2.0');
    expect(base.id).toMatch(/^[0-9a-f]{12}$/);
    expect(fingerprintOf(agent(), { system_prompt: 'plan', max_steps: 20, memory_id: 'm2', tenant_id: 't2', question: 'other' }, '0.2.0')).toEqual(base);
    const priced = agent({ llm: { interface: 'scripted', script: { planner: ['{"steps":[],"result":"x"}'] }, price: { input_per_million: 1, output_per_million: 1 } } });
    expect(fingerprintOf(priced, { max_steps: 20, system_prompt: 'plan' }, '0.2.0').id).toBe(base.id);
    const moved = (f: ReturnType<typeof fingerprintOf>) => fingerprintDifference(base.parts, f.parts);
    expect(moved(fingerprintOf(agent(), { max_steps: 20, system_prompt: 'Plan' }, '0.2.0'))).toEqual(['prompts']);
    expect(moved(fingerprintOf(agent(), { max_steps: 21, system_prompt: 'plan' }, '0.2.0'))).toEqual(['parameters']);
    expect(moved(fingerprintOf(agent({ tools: [] }), { max_steps: 20, system_prompt: 'plan' }, '0.2.0'))).toEqual(['tools']);
    expect(moved(fingerprintOf(agent(), { max_steps: 20, system_prompt: 'plan' }, '0.3.0'))).toEqual(['version']);
    expect(fingerprintOf(agent(), { max_steps: 20, system_prompt: 'plan' }, '0.3.0').id).not.toBe(base.id);
  });
});
