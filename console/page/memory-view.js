// A run's memory as a conversation: each exchange (question, steps with tool calls, decisions, response).
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';
import { href } from './router.js';

export function MemoryView({ id }) {
  const { data: view, error } = usePoll(() => api(`/memory/${encodeURIComponent(id)}`), 0, [id]);
  if (error) return html`<section class="panel"><p class="error" data-testid="memory-error">${error}</p></section>`;
  if (!view) return html`<section class="panel"><p class="muted">Loading memory ${id}…</p></section>`;
  return html`
    <section class="panel memory" data-testid="memory-view">
      <h2>Memory ${view.name ? html`<span class="muted">${view.name}</span>` : ''}</h2>
      <p class="mono muted">${view.memory_id}</p>
      ${view.runs.length === 0 && html`<p class="muted">No exchanges yet.</p>`}
      ${view.runs.map(
        (r, n) => html`
          <article class="exchange" data-testid="memory-exchange">
            <h4>${n + 1}. ${r.question}</h4>
            <p class="muted">${new Date(r.created).toLocaleString()}${r.forked_from ? html` · forked from <a href=${href('runs', r.forked_from.workflow_id)}>${r.forked_from.workflow_id}</a> at step ${r.forked_from.step}` : ''}</p>
            <ol class="steps">
              ${r.steps.map(
                (s, i) => html`<li class="step done">
                  <div class="step-line"><span class="step-no">${i + 1}</span><span class="step-text">${s.step}</span></div>
                  ${s.tool_calls.map((c) => html`<div class="mono small memory-tool">${c.tool} ${c.input} → ${c.output}</div>`)}
                  <div class="step-result mono">${s.result}</div>
                </li>`,
              )}
            </ol>
            ${r.decisions.length > 0 &&
            html`<h5>Decisions</h5>
              <ul class="plain">${r.decisions.map((d) => html`<li><b>${d.kind}</b> ${d.action} by ${d.by} after ${d.after_steps} steps${d.detail ? html` — <span class="mono">${d.detail}</span>` : ''}</li>`)}</ul>`}
            <h5>Response</h5>
            <pre class="response">${r.response}</pre>
          </article>`,
      )}
    </section>`;
}
