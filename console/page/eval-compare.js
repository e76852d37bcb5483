// Two evals case by case (what `perflow eval compare` shows): how each case changed, A's and B's
// verdicts, the changes in tokens, cost and time, and the run diff of the two runs of a case.
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';
import { href } from './router.js';
import { cost, seconds, signed } from './format.js';

const CHANGE_TONE = { improved: 'ok', regressed: 'bad', same: 'neutral', added: 'waiting', removed: 'waiting' };

const Verdict = ({ side }) => (side ? html`<span class=${`badge ${side.passed ? 'ok' : 'bad'}`}>${side.passed ? 'PASS' : 'FAIL'}</span>` : html`<span class="muted">—</span>`);

export function EvalCompare({ a, b }) {
  const { data: d, error } = usePoll(() => api(`/evals/compare?${new URLSearchParams({ a, b })}`), 0, [a, b]);
  if (error) return html`<section class="panel"><p class="error" data-testid="eval-compare-error">${error}</p></section>`;
  if (!d) return html`<section class="panel"><p class="muted">Comparing ${a} and ${b}…</p></section>`;
  const counts = ['improved', 'regressed', 'same', 'added', 'removed'].filter((k) => d[k]).map((k) => `${d[k]} ${k}`);
  return html`
    <section class="panel diff" data-testid="eval-compare">
      <h2>Compare evals</h2>
      <div class="meta compare-heads">
        <span>A <a href=${href('evals', d.a)} class="mono" data-testid="eval-compare-a">${d.a}</a></span>
        <span>B <a href=${href('evals', d.b)} class="mono" data-testid="eval-compare-b">${d.b}</a></span>
        <span data-testid="eval-compare-counts">${counts.join(' · ')}</span>
      </div>
      <table class="eval-table">
        <thead><tr><th>change</th><th>case</th><th>A</th><th>B</th><th class="num">Δ tokens</th><th class="num">Δ cost</th><th class="num">Δ time</th><th></th></tr></thead>
        <tbody>
          ${d.cases.map(
            (c) => html`<tr data-testid="eval-compare-case" data-case-id=${c.id} data-change=${c.change}>
              <td><span class=${`badge ${CHANGE_TONE[c.change]}`} data-testid="case-change">${c.change}</span></td>
              <td class="case-id">${c.id}</td>
              <td><${Verdict} side=${c.a} /></td>
              <td><${Verdict} side=${c.b} /></td>
              <td class="num">${c.delta ? signed(c.delta.tokens) : ''}</td>
              <td class="num">${c.delta ? (c.delta.cost_usd === null ? 'unknown' : signed(c.delta.cost_usd, cost)) : ''}</td>
              <td class="num">${c.delta ? signed(c.delta.duration_ms, seconds) : ''}</td>
              <td>${c.a && c.b && html`<a href=${href('diff', c.a.workflow_id, c.b.workflow_id)} data-testid="case-diff-link">run diff</a>`}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>`;
}
