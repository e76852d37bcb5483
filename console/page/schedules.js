// Schedules (#/schedules, #/schedules/ID): the list on the left, re-read every 3 s — next run,
// paused or not, note — and one schedule on the right: how it fires, its next runs in its time
// zone, its recent runs with status and cost, and pause, unpause, trigger and delete.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api, post } from './api.js';
import { usePoll } from './poll.js';
import { go, href } from './router.js';
import { dollars, tone } from './format.js';

/** A firing time as the schedule's time zone shows it (the ISO string keeps its UTC offset). */
const when = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+/, '') : '—');

const row = (s, selected) => html`
  <li key=${s.id} class=${`run-row ${selected === s.id ? 'selected' : ''}`} data-testid="schedule-row" data-schedule-id=${s.id}>
    <a href=${href('schedules', s.id)}>
      <span class="line">
        <span class=${`badge ${s.paused ? 'waiting' : 'ok'}`} data-testid="schedule-state">${s.paused ? 'paused' : 'active'}</span>
        <span class="agent">${s.id}</span>
      </span>
      <span class="question">${s.agent} · ${s.spec}</span>
      ${!s.paused && s.next_runs[0] && html`<span class="question" data-testid="schedule-next">next ${when(s.next_runs[0])}</span>`}
      ${s.note && html`<span class="question" data-testid="schedule-note">${s.note}</span>`}
    </a>
  </li>`;

export function SchedulesList({ selected }) {
  const { data: schedules, error } = usePoll(() => api('/schedules'), 3000, []);
  return html`
    <section class="panel runs" data-testid="schedules">
      <header class="panel-head"><h2>Schedules</h2></header>
      ${error && html`<p class="error">${error}</p>`}
      ${schedules && schedules.length === 0 && html`<p class="muted">No schedules yet: <code>perflow schedule create</code> makes one.</p>`}
      <ul class="run-rows">${(schedules ?? []).map((s) => row(s, selected))}</ul>
    </section>`;
}

export function ScheduleView({ id }) {
  const [version, setVersion] = useState(0);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const { data: s, error: loadError } = usePoll(() => api(`/schedules/${encodeURIComponent(id)}`), 3000, [id, version]);
  const act = async (what) => {
    setError('');
    try {
      if (what === 'delete') {
        if (!confirm(`Delete schedule ${id}? Runs it started go on.`)) return;
        await api(`/schedules/${encodeURIComponent(id)}`, { method: 'DELETE' });
        go('schedules');
        return;
      }
      await post(`/schedules/${encodeURIComponent(id)}/${what}`, note.trim() ? { note: note.trim() } : {});
      setNote('');
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err.message);
    }
  };
  if (!s) return html`<section class="panel">${loadError ? html`<p class="error" data-testid="schedule-error">${loadError}</p>` : html`<p class="muted">Loading ${id}…</p>`}</section>`;
  return html`
    <div class="run-view">
    <section class="panel run-head" data-testid="schedule-view">
      <div class="line">
        <span class=${`badge big ${s.paused ? 'waiting' : 'ok'}`} data-testid="schedule-view-state">${s.paused ? 'paused' : 'active'}</span>
        <span class="agent">${s.id}</span> <span class="muted">${s.agent}${s.tenant ? ` · tenant ${s.tenant}` : ''}</span>
      </div>
      <h2 class="question">${s.question}</h2>
      <div class="meta">
        <span data-testid="schedule-spec">${s.spec}</span>
        <span>overlap ${s.overlap}</span>
        <span class="mono muted" title="what each run runs: agent type, prompts, tools, models, parameters">fingerprint ${s.fingerprint}</span>
        ${s.same_memory && html`<span>one conversation</span>`}
        ${s.webhook && html`<span class="mono">webhook ${s.webhook}</span>`}
      </div>
      ${s.note && html`<p class="muted" data-testid="schedule-view-note">${s.note}</p>`}
      <div class="line actions">
        <input type="text" placeholder="note (optional)" value=${note} onInput=${(e) => setNote(e.currentTarget.value)} data-testid="schedule-note-input" />
        ${s.paused
          ? html`<button onClick=${() => act('unpause')} data-testid="schedule-unpause">Unpause</button>`
          : html`<button onClick=${() => act('pause')} data-testid="schedule-pause">Pause</button>`}
        <button onClick=${() => act('trigger')} data-testid="schedule-trigger">Run now</button>
        <button class="danger" onClick=${() => act('delete')} data-testid="schedule-delete">Delete</button>
      </div>
      ${error && html`<p class="error" data-testid="schedule-action-error">${error}</p>`}
    </section>
    <div class="run-columns">
      <section class="panel">
        <h3>Next runs <span class="muted">${s.timezone}</span></h3>
        <ol class="mono" data-testid="schedule-next-runs">${s.next_runs.map((t) => html`<li>${when(t)}</li>`)}</ol>
      </section>
      <section class="panel">
        <h3>Recent runs</h3>
        ${s.recent_runs.length === 0 && html`<p class="muted">None yet.</p>`}
        <ul class="plain" data-testid="schedule-runs">
          ${[...s.recent_runs].reverse().map(
            (r) => html`<li data-testid="schedule-run"><a href=${href('runs', r.workflow_id)} class="mono">${r.workflow_id}</a> <span class=${`badge ${tone(r.status.toLowerCase())}`}>${r.status.toLowerCase()}</span> <span class="muted">${dollars(r.cost_usd)}</span></li>`,
          )}
        </ul>
      </section>
    </div>
    </div>`;
}
