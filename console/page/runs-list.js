// The runs the Temporal namespace holds, newest first, re-read every 2 s; two can be ticked to compare.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';
import { go, href } from './router.js';
import { shortTime, tone } from './format.js';

// The statuses the API filters by (others, such as cancelled, show under any status).
const STATUSES = ['', 'running', 'completed', 'failed'];

export function RunsList({ selected }) {
  const [status, setStatus] = useState('');
  const [agent, setAgent] = useState('');
  const [picked, setPicked] = useState([]);
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(agent ? { agent } : {}) });
  const { data: runs, error } = usePoll(() => api(`/runs?${query}`), 2000, [status, agent]);

  const toggle = (id) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));

  return html`
    <section class="panel runs" data-testid="runs">
      <header class="panel-head">
        <h2>Runs</h2>
        <select data-testid="runs-status" value=${status} onChange=${(e) => setStatus(e.currentTarget.value)} aria-label="status">
          ${STATUSES.map((s) => html`<option value=${s}>${s || 'any status'}</option>`)}
        </select>
        <input data-testid="runs-agent" placeholder="agent" value=${agent} onInput=${(e) => setAgent(e.currentTarget.value)} />
      </header>
      <div class="compare-bar">
        <span>${picked.length === 2 ? 'Two runs picked' : 'Tick two runs to compare them'}</span>
        <button data-testid="compare" disabled=${picked.length !== 2} onClick=${() => go('diff', picked[0], picked[1])}>Compare</button>
      </div>
      ${error && html`<p class="error" data-testid="runs-error">${error}</p>`}
      ${runs === undefined && !error && html`<p class="muted">Loading…</p>`}
      ${runs && runs.length === 0 && html`<p class="muted">No runs yet.</p>`}
      <ul class="run-rows">
        ${(runs ?? []).map(
          (r) => html`
            <li key=${r.workflow_id} class=${`run-row ${r.workflow_id === selected ? 'selected' : ''}`} data-testid="run-row" data-workflow-id=${r.workflow_id}>
              <input type="checkbox" title="compare" data-testid="run-pick" checked=${picked.includes(r.workflow_id)} onChange=${() => toggle(r.workflow_id)} />
              <a href=${href('runs', r.workflow_id)}>
                <span class="line">
                  <span class=${`badge ${tone(r.status)}`} data-testid="run-status">${r.status}</span>
                  ${r.waiting_for && html`<span class="badge waiting" data-testid="run-waiting">waits for ${r.waiting_for}</span>`}
                  <span class="agent">${r.agent}</span>
                  <span class="time">${shortTime(r.start_time)}</span>
                </span>
                <span class="question">${r.question}</span>
              </a>
            </li>`,
        )}
      </ul>
    </section>`;
}
