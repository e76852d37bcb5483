// One eval: suite, agent, pass rate and status (a progress bar while it runs, re-read every
// 1.5 s until it ends), then a row per case: its first failing check, steps, tokens, cost,
// duration and a link to its run; a row opens to every check with its detail.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';
import { href } from './router.js';
import { cost, passRate, seconds, shortTime, tokenCount, tone } from './format.js';

function Progress({ p }) {
  const pct = p.total ? Math.round((p.done / p.total) * 100) : 0;
  return html`<div class="eval-progress" data-testid="eval-progress">
    <div class="bar"><div class="fill" style=${`width: ${pct}%`}></div></div>
    <span class="muted small">${p.done}/${p.total} done · ${p.passed} passed · ${p.failed} failed · ${p.running} running</span>
  </div>`;
}

function CaseRows({ c }) {
  const [open, setOpen] = useState(false);
  const failing = c.checks.find((k) => !k.passed);
  return html`
    <tr class=${`case-row ${open ? 'open' : ''}`} data-testid="eval-case" data-case-id=${c.id} data-passed=${String(c.passed)} onClick=${() => setOpen(!open)}>
      <td><span class=${`badge ${c.passed ? 'ok' : 'bad'}`} data-testid="case-verdict">${c.passed ? 'PASS' : 'FAIL'}</span></td>
      <td class="case-id"><span class="muted">${open ? '▾' : '▸'}</span> ${c.id}</td>
      <td class="case-check" data-testid="case-first-failing">
        ${failing ? html`<span class="mono">${failing.check}</span> — <span class="muted">${failing.detail}</span>` : c.error ? html`<span class="error">${c.error}</span>` : html`<span class="muted">${c.checks.length === 1 ? 'its check passes' : `all ${c.checks.length} checks pass`}</span>`}
      </td>
      <td class="num">${c.steps}</td>
      <td class="num">${tokenCount(c.usage)}</td>
      <td class="num">${cost(c.cost_usd)}</td>
      <td class="num">${seconds(c.duration_ms)}</td>
      <td><a href=${href('runs', c.workflow_id)} data-testid="case-run-link" onClick=${(e) => e.stopPropagation()}>run</a></td>
    </tr>
    ${open &&
    html`<tr class="case-checks" data-testid="case-checks"><td></td><td colspan="7">
      <ul class="plain">
        ${c.checks.map((k) => html`<li data-testid="case-check"><span class=${`badge ${k.passed ? 'ok' : 'bad'}`}>${k.passed ? 'pass' : 'fail'}</span> <span class="mono">${k.check}</span> — <span class="muted">${k.detail}</span></li>`)}
        ${c.error && html`<li class="error">${c.error}</li>`}
      </ul>
    </td></tr>`}`;
}

export function EvalView({ id }) {
  const [ended, setEnded] = useState(false);
  const { data: e, error } = usePoll(() => api(`/evals/${encodeURIComponent(id)}`), ended ? 0 : 1500, [id, ended]);
  const status = e?.status;
  useEffect(() => {
    if (status !== undefined && status !== 'running') setEnded(true);
  }, [status]);
  if (!e) return html`<section class="panel">${error ? html`<p class="error" data-testid="eval-error">${error}</p>` : html`<p class="muted">Loading ${id}…</p>`}</section>`;
  return html`
    <div class="run-view" data-testid="eval-view" data-eval-id=${e.eval_id}>
      <section class="panel run-head">
        <div class="line">
          <span class=${`badge big ${tone(e.status)}`} data-testid="eval-view-status">${e.status}</span>
          <span class="agent">${e.agent}</span>
          <span class="spacer"></span>
          <span class="muted small">started ${shortTime(e.started_at)}${e.ended_at ? ` · ended ${shortTime(e.ended_at)}` : ''}</span>
        </div>
        <h2 class="question" data-testid="eval-suite">${e.suite}</h2>
        <div class="meta">
          <span class="mono">${e.eval_id}</span>
          <span data-testid="eval-view-pass-rate">${e.progress ? `passed so far ${passRate(e.progress.passed, e.progress.failed)}` : `passed ${passRate(e.passed, e.failed)}`}</span>
        </div>
        ${e.progress && html`<${Progress} p=${e.progress} />`}
        ${error && html`<p class="error">${error}</p>`}
      </section>
      <section class="panel">
        <h3>Cases</h3>
        ${e.cases.length === 0 && html`<p class="muted" data-testid="eval-no-cases">${e.status === 'running' ? 'The cases show here as they are scored.' : 'The eval has no cases.'}</p>`}
        ${e.cases.length > 0 &&
        html`<table class="eval-table">
          <thead><tr><th></th><th>case</th><th>first failing check</th><th class="num">steps</th><th class="num">tokens</th><th class="num">cost</th><th class="num">time</th><th></th></tr></thead>
          <tbody>${e.cases.map((c) => html`<${CaseRows} key=${c.id} c=${c} />`)}</tbody>
        </table>`}
      </section>
    </div>`;
}
