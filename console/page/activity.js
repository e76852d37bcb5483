// What the run did, as it happens: each model call's text as it streams (monospace) and each
// tool call with its input and output. The newest model call stays open; older ones fold away.
import { html } from './html.js';
import { dollars } from './format.js';

const where = (a) => (a.step !== undefined ? `step ${a.step + 1}` : '');

const ACTION = { raise: 'budget raised', approve: 'approved', edit: 'approved with edits', reject: 'rejected', stop: 'rejected, run stopped', deny: 'denied', guide: 'guidance given', pause: 'paused', resume: 'resumed' };

function DecisionEntry({ entry: { pending, decided } }) {
  const what = pending
    ? pending.kind === 'plan'
      ? 'the plan'
      : pending.kind === 'budget'
      ? html`the budget: ${dollars(pending.budget?.cost_usd)} spent of ${dollars(pending.budget?.max_cost_usd)}`
      : html`<b>${pending.tool}</b> ${where({ step: pending.step?.index })} <code>${JSON.stringify(pending.input ?? {})}</code>`
    : undefined; // guidance, pause, resume: the action says it all
  return html`
    <div class=${`call decision-entry ${decided ? '' : 'open'}`} data-testid="decision-entry">
      <span class="badge waiting">decision</span> ${what}
      ${decided ? html`${what ? ' — ' : ''}<b data-testid="decision-outcome">${ACTION[decided.action] ?? decided.action}</b> by ${decided.by}` : html` <i>waits for a person</i>`}
    </div>`;
}

// The server's summary of the event: the line `perflow watch` prints for it.
function CompactionEntry({ entry: e }) {
  return html`
    <div class="call compaction-entry" data-testid="compaction-entry">
      <span class="badge neutral">context</span> ${e.summary}
    </div>`;
}

function GuardrailEntry({ entry: e }) {
  return html`
    <div class="call guardrail-entry" data-testid="guardrail-entry">
      <span class=${`badge ${e.passed ? 'ok' : 'bad'}`}>guardrail</span> ${e.summary}
    </div>`;
}

export function Activity({ events }) {
  const items = events.activity;
  const lastModel = items.reduce((last, a, i) => (a.kind === 'model' ? i : last), -1);
  return html`
    <section class="panel" data-testid="activity">
      <h3>Activity <span class=${`live ${events.connected ? 'on' : ''}`} data-testid="live">${events.connected ? 'live' : events.finished ? 'ended' : 'connecting…'}</span></h3>
      ${items.length === 0 && html`<p class="muted">Nothing yet.</p>`}
      ${items.map((a, i) =>
        a.kind === 'decision'
          ? html`<${DecisionEntry} key=${a.call} entry=${a} />`
          : a.kind === 'compaction'
          ? html`<${CompactionEntry} key=${a.call} entry=${a} />`
          : a.kind === 'guardrail'
          ? html`<${GuardrailEntry} key=${a.call} entry=${a} />`
          : a.kind === 'model'
          ? html`
              <details key=${a.call} class="call model" open=${i === lastModel} data-testid="model-call" data-call=${a.call} data-role=${a.role}>
                <summary><b>${a.role}</b> ${where(a)} <span class="muted">${a.call}</span>${a.retries ? html` <span class="badge waiting">retried ×${a.retries}</span>` : ''}</summary>
                <pre class="model-text" data-testid="model-text">${a.text}</pre>
              </details>`
          : html`
              <div key=${a.call} class="call tool" data-testid="tool-call" data-call=${a.call}>
                <div><b>${a.tool}</b> ${where(a)} ${a.ok === undefined ? html`<span class="badge running">running</span>` : html`<span class=${`badge ${a.ok ? 'ok' : 'bad'}`}>${a.ok ? 'ok' : 'failed'}</span>`}</div>
                <div class="io"><span class="muted">input</span><pre data-testid="tool-input">${a.input}</pre></div>
                ${a.output !== undefined && html`<div class="io"><span class="muted">output</span><pre data-testid="tool-output">${a.output}</pre></div>`}
              </div>`,
      )}
    </section>`;
}
