// Two runs side by side (what `perflow diff` shows): settings that differ, the plans after each
// planner call, each step, tokens and durations, the responses and the agent trees' nodes (each
// pair of sub-agent runs compared in turn by following its link); ≠ marks what differs.
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';
import { href } from './router.js';
import { json, seconds, tokens, tone } from './format.js';

const planText = (p) => (p ? (p.result !== undefined ? `result: ${p.result}` : p.steps.map((s, i) => `${i + 1}. ${s}`).join('\n')) : '—');

function StepSide({ s }) {
  if (!s) return html`<td class="muted">—</td>`;
  return html`<td>
    <div class=${s.ok ? '' : 'error'}>${s.step}</div>
    ${s.tool_calls.map((c) => html`<div class="mono small">${c.tool} ${JSON.stringify(c.input)}</div>`)}
    <div class="mono small muted">${s.result_preview}</div>
    <div class="muted small">${tokens(s.usage)} · ${seconds(s.duration_ms)}</div>
  </td>`;
}

const Mark = ({ same }) => html`<td class=${`mark ${same ? '' : 'differs'}`}>${same ? '' : '≠'}</td>`;

const RunLink = ({ id }) => (id ? html`<a href=${href('runs', id)} class="mono">${id}</a>` : html`<span class="muted">—</span>`);

function SubAgentNode({ n }) {
  const where = `step ${n.step + 1} ${n.tool}${n.call > 0 ? ` #${n.call + 1}` : ''}`;
  return html`<tr data-testid="diff-sub-agent" data-same=${String(n.same)}>
    <${Mark} same=${n.same} /><td class="key">${where}</td>
    ${n.shared
      ? html`<td colspan="2"><${RunLink} id=${n.a} /> <span class="muted">one run, reused by both</span></td>`
      : html`<td><${RunLink} id=${n.a} /></td><td><${RunLink} id=${n.b} />
          ${n.a && n.b && html` <a href=${href('diff', n.a, n.b)} data-testid="diff-sub-agent-compare">compare</a>`}</td>`}
  </tr>`;
}

export function DiffView({ a, b }) {
  const { data: d, error } = usePoll(() => api(`/diff?${new URLSearchParams({ a, b })}`), 0, [a, b]);
  if (error) return html`<section class="panel"><p class="error" data-testid="diff-error">${error}</p></section>`;
  if (!d) return html`<section class="panel"><p class="muted">Comparing ${a} and ${b}…</p></section>`;
  const calls = Math.max(d.a.plans.length, d.b.plans.length);
  return html`
    <section class="panel diff" data-testid="diff-view">
      <h2>Compare runs</h2>
      <table class="diff-table">
        <thead>
          <tr><th></th><th></th>
            ${[d.a, d.b].map(
              (r, i) => html`<th data-testid=${`diff-side-${i ? 'b' : 'a'}`}>
                ${i ? 'B' : 'A'} <a href=${href('runs', r.workflow_id)} class="mono">${r.workflow_id}</a>
                <div><span class=${`badge ${tone(r.status)}`}>${r.status}</span> ${r.agent}</div>
              </th>`,
            )}
          </tr>
        </thead>
        <tbody>
          <tr class="section"><td colspan="4">Settings that differ</td></tr>
          ${d.settings.length === 0 && html`<tr><td></td><td colspan="3" class="muted">none</td></tr>`}
          ${d.settings.map(
            (s) => html`<tr data-testid="diff-setting" data-key=${s.key}>
              <${Mark} same=${false} /><td class="key">${s.key}</td>
              ${s.diff ? html`<td colspan="2"><pre class="unified">${s.diff}</pre></td>` : html`<td class="mono">${json(s.a)}</td><td class="mono">${json(s.b)}</td>`}
            </tr>`,
          )}
          <tr class="section"><td colspan="4">Plans after each planner call</td></tr>
          ${Array.from({ length: calls }, (_, k) => {
            const [pa, pb] = [planText(d.a.plans[k]), planText(d.b.plans[k])];
            return html`<tr data-testid="diff-plan"><${Mark} same=${pa === pb} /><td class="key">call ${k + 1}</td><td><pre>${pa}</pre></td><td><pre>${pb}</pre></td></tr>`;
          })}
          <tr class="section"><td colspan="4">Steps</td></tr>
          ${d.steps.map(
            (s) => html`<tr data-testid="diff-step" data-same=${String(s.same)}><${Mark} same=${s.same} /><td class="key">step ${s.index + 1}</td><${StepSide} s=${s.a} /><${StepSide} s=${s.b} /></tr>`,
          )}
          <tr class="section"><td colspan="4">Totals</td></tr>
          <tr data-testid="diff-totals"><td></td><td class="key">tokens · cost · time</td>
            <td>${tokens(d.a.usage)} · ${seconds(d.a.duration_ms)}</td><td>${tokens(d.b.usage)} · ${seconds(d.b.duration_ms)}</td></tr>
          <tr class="section"><td colspan="4">Response</td></tr>
          <tr data-testid="diff-response"><${Mark} same=${d.same_response} /><td class="key">response</td>
            <td><pre class="response">${d.a.response ?? '(none)'}</pre></td><td><pre class="response">${d.b.response ?? '(none)'}</pre></td></tr>
          ${d.sub_agents.length > 0 && html`<tr class="section"><td colspan="4">Sub-agents, node by node</td></tr>`}
          ${d.sub_agents.map((n) => html`<${SubAgentNode} n=${n} />`)}
        </tbody>
      </table>
    </section>`;
}
