// The run's plan as one list: completed steps (done / failed), the steps running now, and the
// plan's steps still to do; a completed step offers a fork from it.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { ForkForm } from './fork-form.js';

/** Every step with its state, in order. `plan` holds the steps still to do, the running ones included. */
export function stepRows(p, ended = false) {
  const rows = p.completed_steps.map((s) => ({ index: s.index, text: s.step, state: s.ok ? 'done' : 'failed', result: s.result_preview }));
  const running = p.current_steps ?? (p.current_step ? [p.current_step] : []);
  rows.push(...running.map((c) => ({ index: c.index, text: c.step, state: 'running' })));
  const open = [...p.plan];
  for (const c of running) {
    const at = open.indexOf(c.step);
    if (at >= 0) open.splice(at, 1);
  }
  // Between a step's end and the next plan the old plan still starts with the step just done.
  const lastDone = p.completed_steps[p.completed_steps.length - 1];
  if (running.length === 0 && p.status === 'planning' && lastDone && open[0] === lastDone.step) open.shift();
  // An ended run has nothing left to do, whatever its last plan said.
  if (ended) return rows.sort((a, b) => a.index - b.index);
  let next = rows.reduce((n, r) => Math.max(n, r.index + 1), 0);
  rows.push(...open.map((text) => ({ index: next++, text, state: 'todo' })));
  // A plan under review is not the run's plan yet: show it as proposed.
  const proposed = open.length === 0 ? (p.pending ?? []).find((d) => d.kind === 'plan')?.plan : undefined;
  rows.push(...(proposed ?? []).map((text) => ({ index: next++, text, state: 'proposed' })));
  return rows.sort((a, b) => a.index - b.index);
}

const LABEL = { done: 'done', failed: 'failed', running: 'running', todo: 'to do', proposed: 'proposed' };

export function Steps({ progress, ended }) {
  const [forking, setForking] = useState(undefined);
  const rows = stepRows(progress, ended);
  return html`
    <section class="panel" data-testid="plan">
      <h3>Plan</h3>
      ${rows.length === 0 && html`<p class="muted">No plan yet.</p>`}
      <ol class="steps">
        ${rows.map(
          (r) => html`
            <li key=${r.index} class=${`step ${r.state}`} data-testid="step" data-state=${r.state} data-index=${r.index}>
              <div class="step-line">
                <span class="step-no">${r.index + 1}</span>
                <span class=${`badge ${r.state}`}>${LABEL[r.state]}</span>
                <span class="step-text">${r.text}</span>
                ${(r.state === 'done' || r.state === 'failed') &&
                html`<button class="small" data-testid="fork-open" onClick=${() => setForking(forking === r.index ? undefined : r.index)}>Fork from here</button>`}
              </div>
              ${r.result && html`<div class="step-result mono">${r.result}</div>`}
              ${forking === r.index && html`<${ForkForm} workflowId=${progress.workflow_id} fromStep=${r.index + 1} question=${progress.question} onClose=${() => setForking(undefined)} />`}
            </li>`,
        )}
      </ol>
    </section>`;
}
