/**
 * Behaviour the seeds specify that needs no seed document to check (the checks against the
 * documents themselves are the seed conformance tests, test/seeds), and the documentation where
 * it restates a default.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentDefinition, resolveParameters } from '../../../core/agent';
import { DEFAULT_REPLAN_KEYWORDS } from '../../../core/prompts';
import { formatDatetime } from '../../../core/datetime';
import { MAX_PARAMETER_NESTING, resolveParameterValues } from '../../../core/template';
import { DEFAULT_TOOL_TIMEOUT_SECONDS, toolTimeoutSeconds } from '../../../core/tool-types';

const root = join(__dirname, '..', '..', '..');

describe('datetime_format', () => {
  const t = Date.UTC(2026, 10, 23, 9, 5, 7);

  it('understands Java-style patterns as OpenSearch users write them', () => {
    expect(formatDatetime(t, 'yyyy-MM-dd HH:mm:ss')).toEqual({ text: '2026-11-23 09:05:07' });
    expect(formatDatetime(t, "EEEE, d MMMM yyyy 'at' HH:mm z")).toEqual({ text: 'Monday, 23 November 2026 at 09:05 UTC' });
    expect(formatDatetime(t, "yyyy-MM-dd'T'HH:mm:ssXXX")).toEqual({ text: '2026-11-23T09:05:07Z' });
    expect(formatDatetime(t, "dd/MM/yy ''H''")).toEqual({ text: "23/11/26 '9'" });
  });

  it('never emits an unsupported pattern literally: the default, with a warning naming the supported syntax', () => {
    const out = formatDatetime(t, 'yyyy-MM-dd hh:mm a');
    expect(out.text).toBe('2026-11-23 09:05:07 UTC');
    expect(out.warning).toContain('"hh" is not supported');
    expect(out.warning).toContain('supported: strftime %Y %m %d %H %M %S %A %B %Z %%, or Java-style yyyy');
  });
});

describe('tool timeouts', () => {
  it('take timeout_seconds as a number or numeric string, else the default', () => {
    expect(toolTimeoutSeconds({ timeout_seconds: 250 })).toBe(250);
    expect(toolTimeoutSeconds({ timeout_seconds: '30' })).toBe(30);
    expect(toolTimeoutSeconds({ timeout_seconds: 'soon' })).toBe(DEFAULT_TOOL_TIMEOUT_SECONDS);
    expect(toolTimeoutSeconds(undefined)).toBe(DEFAULT_TOOL_TIMEOUT_SECONDS);
  });
});

describe('the agent file documentation (docs/agent-file.md)', () => {
  it('lists the default replan_keywords the code uses', () => {
    const doc = readFileSync(join(root, 'docs', 'agent-file.md'), 'utf8');
    const row = doc.split('\n').find((l) => l.startsWith('| `replan_keywords` |'))!;
    const listed = [...row.split('trigger 2:')[1].split('(')[0].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(listed).toEqual([...DEFAULT_REPLAN_KEYWORDS]);
  });
});

describe('${parameters.x} inside parameter values', () => {
  it('is filled from the other values, nested, with cycles ending after a bounded number of passes', () => {
    const out = resolveParameterValues({ a: 'A(${parameters.b})', b: 'B(${parameters.c})', c: 'C', loop: 'x${parameters.loop2}', loop2: 'y${parameters.loop}', q: '${parameters.c}' }, ['q']);
    expect(out.a).toBe('A(B(C))');
    expect(out.q).toBe('${parameters.c}');
    // A cycle stops: the remaining placeholder stays literal after MAX_PARAMETER_NESTING passes.
    expect(out.loop.startsWith('xy')).toBe(true);
    expect(out.loop.length).toBeLessThan(20 + 4 * MAX_PARAMETER_NESTING);
    expect(out.loop).toMatch(/\$\{parameters\.loop2?\}$/);
  });
});

describe('a run-level llm_interface', () => {
  const agent = parseAgentDefinition({ name: 'a', type: 'plan_execute_and_reflect', llm: { interface: 'openai/v1/chat/completions', model: 'gpt-4o' } });

  it('that names another interface than llm.interface is rejected before the run, in one line', () => {
    expect(() => resolveParameters(agent, { llm_interface: 'bedrock/converse/claude' })).toThrow(
      'invalid agent parameters: parameters.llm_interface: "bedrock/converse/claude" differs from llm.interface "openai/v1/chat/completions"; to switch the interface set llm.interface (and its model) in the agent file',
    );
    expect(() => resolveParameters(agent, { _llm_interface: 'bedrock/converse/claude' })).toThrow(/parameters\._llm_interface: .* differs from llm\.interface/);
  });

  it('that names the same interface (or an alias of it) is accepted', () => {
    expect(resolveParameters(agent, { llm_interface: 'openai/v1/chat/completions' }).llm_interface).toBe('openai/v1/chat/completions');
  });
});
