// The runs the Temporal namespace holds, newest first, re-read every 2 s; two can be ticked to compare.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';
import { go, href } from './router.js';
import { shortTime, tone } from './format.js';
import { PickList } from './pick-list.js';

// The statuses the API filters by (others, such as cancelled, show under any status).
const STATUSES = ['', 'running', 'completed', 'tripped', 'failed'];

const link = (r) => html`
  <a href=${href('runs', r.workflow_id)}>
    <span class="line">
      <span class=${`badge ${tone(r.status)}`} data-testid="run-status">${r.status}</span>
      ${r.waiting_for && html`<span class="badge waiting" data-testid="run-waiting">waits for ${r.waiting_for}</span>`}
      <span class="agent">${r.agent}</span>
      <span class="time">${shortTime(r.start_time)}</span>
    </span>
    <span class="question">${r.question}</span>
  </a>`;

export function RunsList({ selected }) {
  const [status, setStatus] = useState('');
  const [agent, setAgent] = useState('');
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(agent ? { agent } : {}) });
  const { data: runs, error } = usePoll(() => api(`/runs?${query}`), 2000, [status, agent]);

  return html`
    <section class="panel runs" data-testid="runs">
      <header class="panel-head">
        <h2>Runs</h2>
        <select data-testid="runs-status" value=${status} onChange=${(e) => setStatus(e.currentTarget.value)} aria-label="status">
          ${STATUSES.map((s) => html`<option value=${s}>${s || 'any status'}</option>`)}
        </select>
        <input data-testid="runs-agent" placeholder="agent" value=${agent} onInput=${(e) => setAgent(e.currentTarget.value)} />
      </header>
      <${PickList}
        noun="run"
        items=${runs}
        error=${error}
        empty="No runs yet."
        selected=${selected}
        idOf=${(r) => r.workflow_id}
        attrs=${(r) => ({ 'data-workflow-id': r.workflow_id })}
        link=${link}
        compareTestId="compare"
        onCompare=${(a, b) => go('diff', a, b)}
      />
    </section>`;
}
