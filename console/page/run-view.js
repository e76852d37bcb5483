// One run: its question, plan and steps, what it does right now (streamed), its decisions,
// usage and result. Progress is re-read when the event stream says it changed, and every few
// seconds besides (a pause, for one, shows no event until the run holds).
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { href } from './router.js';
import { json, tokens, tone } from './format.js';
import { useRunEvents } from './run-events.js';
import { Steps } from './steps.js';
import { Activity } from './activity.js';
import { Decisions } from './decisions.js';
import { AgentTree } from './agent-tree.js';

const ENDED = new Set(['completed', 'tripped', 'failed']);

export function RunView({ id }) {
  const [progress, setProgress] = useState(undefined);
  const [error, setError] = useState('');
  const debounce = useRef();
  const load = () =>
    api(`/runs/${encodeURIComponent(id)}`)
      .then((p) => {
        setProgress(p);
        setError('');
      })
      .catch((err) => setError(err.message));
  // Events come in bursts (a replayed stream, a step's end and the next plan): one read per burst.
  const refresh = () => {
    clearTimeout(debounce.current);
    debounce.current = setTimeout(load, 150);
  };
  const events = useRunEvents(id, refresh);
  const ended = events.finished !== undefined || (progress && ENDED.has(progress.status));

  useEffect(() => {
    setProgress(undefined);
    load();
  }, [id]);
  // A webhook delivery goes on after the run ended: its state is re-read until it is over.
  const delivering = ['pending', 'retrying'].includes(progress?.webhook?.state);
  useEffect(() => {
    if (ended && !delivering) return undefined;
    const timer = setInterval(load, ended ? 5000 : 3000);
    return () => clearInterval(timer);
  }, [id, ended, delivering]);

  if (!progress) return html`<section class="panel">${error ? html`<p class="error" data-testid="run-error">${error}</p>` : html`<p class="muted">Loading ${id}…</p>`}</section>`;

  const p = progress;
  // How the run ended, as the stream tells it: a cancelled run's progress only says it failed.
  const status = events.finished?.status ?? p.status;
  const response = events.finished?.response || p.result;
  const failure = events.finished?.error ?? p.error;
  return html`
    <div class="run-view" data-testid="run-view" data-workflow-id=${p.workflow_id}>
      <section class="panel run-head">
        <div class="line">
          <span class=${`badge big ${tone(status)}`} data-testid="run-view-status">${status}</span>
          <span class="agent">${p.agent}</span> <span class="muted">${p.agent_type ?? ''}</span>
          <span class="spacer"></span>
          ${p.ui_url && html`<a href=${p.ui_url} target="_blank" rel="noopener" data-testid="temporal-link">Temporal UI ↗</a>`}
          ${p.memory_id && html`<a href=${href('memory', p.memory_id)} data-testid="memory-link">Memory</a>`}
        </div>
        <h2 class="question" data-testid="run-question">${p.question}</h2>
        <div class="meta">
          <span class="mono" data-testid="run-id">${p.workflow_id}</span>
          ${p.fingerprint && html`<span class="mono muted" title="what shapes the run's behaviour: agent type, prompts, tools, models, parameters, perflow version" data-testid="run-fingerprint">fingerprint ${p.fingerprint}</span>`}
          <span data-testid="run-usage">steps ${p.steps_executed}/${p.max_steps} · tokens ${tokens(p.usage)}</span>
          ${p.forked_from && html`<span>forked from <a href=${href('runs', p.forked_from.workflow_id)}>${p.forked_from.workflow_id}</a> at step ${p.forked_from.step}</span>`}
        </div>
        ${error && html`<p class="error">${error}</p>`}
      </section>
      ${!ended && html`<${Decisions} progress=${p} onDone=${load} />`}
      <${AgentTree} progress=${p} onDone=${load} />
      ${ended &&
      html`<section class=${`panel result ${failure ? 'failed' : ''}`} data-testid="run-result">
        <h3>${failure ? 'Error' : p.tripped ? 'Stopped' : 'Response'}</h3>
        ${failure && html`<p class="error" data-testid="run-failure">${failure}</p>`}
        ${p.tripped && html`<p class="error" data-testid="run-tripped">Stopped by the ${p.tripped.place} guardrail <span class="mono">${p.tripped.check}</span>: ${p.tripped.detail}</p>`}
        ${p.output !== undefined ? html`<pre class="response" data-testid="run-output">${json(p.output)}</pre>` : !p.tripped && response && html`<pre class="response" data-testid="run-response">${response}</pre>`}
        ${p.webhook_line && html`<p class="muted" data-testid="run-webhook">${p.webhook_line}</p>`}
      </section>`}
      <div class="run-columns">
        <${Steps} progress=${p} ended=${ended} />
        <${Activity} events=${events} />
      </div>
      ${(p.decisions ?? []).length > 0 &&
      html`<section class="panel" data-testid="decision-log">
        <h3>Decisions taken</h3>
        <ul class="plain">
          ${p.decisions.map((d) => html`<li><b>${d.kind}</b> ${d.action} by ${d.by}${d.detail ? html` — <span class="mono">${d.detail}</span>` : ''}</li>`)}
        </ul>
      </section>`}
    </div>`;
}
