// What a person can decide in a running run: a plan to approve, edit or reject, a tool call to
// approve, deny or run with other input, a remote agent's question to answer, a run waiting at its dollar budget to let go on or end,
// and guidance, pause, resume and cancel at any time.
// A refused decision shows the API's one-line error.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { post } from './api.js';
import { dollars } from './format.js';

function useDecide(workflowId, onDone) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const decide = async (body) => {
    setError('');
    setBusy(true);
    try {
      // Decisions record who took them; the console knows no more than that it was someone at the console.
      await post(`/runs/${encodeURIComponent(workflowId)}/decisions`, { by: 'console', ...body });
      onDone();
      return true;
    } catch (err) {
      setError(err.message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, decide };
}

const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

function PlanDecision({ pending, workflowId, onDone }) {
  const proposed = pending.plan ?? [];
  const [steps, setSteps] = useState(proposed);
  const [reason, setReason] = useState('');
  const [stop, setStop] = useState(false);
  const { error, busy, decide } = useDecide(workflowId, onDone);
  const edit = (i, text) => setSteps(steps.map((s, j) => (j === i ? text : s)));
  const edited = !sameList(steps, proposed);
  const kept = steps.map((s) => s.trim()).filter(Boolean);
  return html`
    <div class="decision plan" data-testid="plan-decision" data-decision-id=${pending.id}>
      <h4>The plan waits for approval</h4>
      <ol class="plan-edit">
        ${steps.map(
          (s, i) => html`
            <li key=${i}>
              <input class="step-input" data-testid="plan-step-input" value=${s} onInput=${(e) => edit(i, e.currentTarget.value)} />
              <button class="small" title="remove this step" data-testid="plan-step-remove" onClick=${() => setSteps(steps.filter((_, j) => j !== i))}>✕</button>
            </li>`,
        )}
      </ol>
      <div class="buttons">
        <button class="small" data-testid="plan-step-add" onClick=${() => setSteps([...steps, ''])}>+ step</button>
        <button class="small" disabled=${!edited} onClick=${() => setSteps(proposed)}>Undo edits</button>
      </div>
      <div class="buttons">
        <button class="primary" data-testid="plan-approve" disabled=${busy || kept.length === 0}
          onClick=${() => decide({ kind: 'approve', ...(edited ? { steps: kept } : {}) })}>${edited ? 'Approve edited plan' : 'Approve'}</button>
      </div>
      <div class="reject">
        <input data-testid="plan-reason" placeholder="why the plan is rejected" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
        <label class="inline"><input type="checkbox" data-testid="plan-stop" checked=${stop} onChange=${(e) => setStop(e.currentTarget.checked)} /> end the run</label>
        <button class="danger" data-testid="plan-reject" disabled=${busy || !reason.trim()}
          onClick=${() => decide({ kind: 'reject', reason, ...(stop ? { stop: true } : {}) })}>Reject</button>
      </div>
      ${error && html`<p class="error" data-testid="decision-error">${error}</p>`}
    </div>`;
}

function ToolDecision({ pending, workflowId, onDone }) {
  const original = JSON.stringify(pending.input ?? {}, null, 2);
  const [input, setInput] = useState(original);
  const [reason, setReason] = useState('');
  const { error, busy, decide } = useDecide(workflowId, onDone);
  const [invalid, setInvalid] = useState('');
  const approve = () => {
    setInvalid('');
    if (input === original) return decide({ kind: 'approve_tool' });
    try {
      return decide({ kind: 'approve_tool', input: JSON.parse(input) });
    } catch (err) {
      setInvalid(`the input is not JSON: ${err.message}`);
    }
  };
  return html`
    <div class="decision tool" data-testid="tool-decision" data-decision-id=${pending.id}>
      <h4>A tool call waits for approval</h4>
      <p>Step ${(pending.step?.index ?? 0) + 1}${pending.step?.text ? html`: <i>${pending.step.text}</i>` : ''} calls <b data-testid="tool-decision-tool">${pending.tool}</b> with</p>
      <textarea class="mono" rows=${Math.min(12, original.split('\n').length + 1)} data-testid="tool-input-edit" value=${input} onInput=${(e) => setInput(e.currentTarget.value)}></textarea>
      <div class="buttons">
        <button class="primary" data-testid="tool-approve" disabled=${busy} onClick=${approve}>${input === original ? 'Approve' : 'Run with this input'}</button>
      </div>
      <div class="reject">
        <input data-testid="tool-reason" placeholder="why the call is denied (the model reads it)" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
        <button class="danger" data-testid="tool-deny" disabled=${busy || !reason.trim()} onClick=${() => decide({ kind: 'deny_tool', reason })}>Deny</button>
      </div>
      ${(invalid || error) && html`<p class="error" data-testid="decision-error">${invalid || error}</p>`}
    </div>`;
}


// A remote agent (A2A) asks a question: the answer goes back to its task as the next message.
function RemoteQuestion({ pending, workflowId, onDone }) {
  const [answer, setAnswer] = useState('');
  const [reason, setReason] = useState('');
  const { error, busy, decide } = useDecide(workflowId, onDone);
  return html`
    <div class="decision tool" data-testid="remote-question" data-decision-id=${pending.id}>
      <h4>The remote agent <b>${pending.tool}</b> asks</h4>
      <p data-testid="remote-question-text">${pending.question}</p>
      <textarea rows="3" data-testid="remote-answer" placeholder="your answer, sent to the remote agent" value=${answer} onInput=${(e) => setAnswer(e.currentTarget.value)}></textarea>
      <div class="buttons">
        <button class="primary" data-testid="remote-answer-send" disabled=${busy || !answer.trim()} onClick=${() => decide({ kind: 'approve_tool', input: { message: answer.trim() } })}>Answer</button>
      </div>
      <div class="reject">
        <input data-testid="remote-reason" placeholder="why not (the remote task is cancelled; the model reads it)" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
        <button class="danger" data-testid="remote-decline" disabled=${busy || !reason.trim()} onClick=${() => decide({ kind: 'deny_tool', reason })}>Decline</button>
      </div>
      ${error && html`<p class="error" data-testid="decision-error">${error}</p>`}
    </div>`;
}

function BudgetDecision({ pending, workflowId, onDone }) {
  const [usd, setUsd] = useState('');
  const [reason, setReason] = useState('');
  const { error, busy, decide } = useDecide(workflowId, onDone);
  const cap = Number(usd);
  const b = pending.budget;
  // A wait at the tenant's daily cap is raised for the whole tenant (perflow budget set), not here.
  const raise = b?.reason === 'tenant'
    ? html`<p data-testid="budget-tenant">Its tenant ${b.tenant} has spent <b data-testid="budget-cost">${dollars(b.cost_usd)}</b> of its ${dollars(b.max_cost_usd)} per day (UTC day ${b.day}): raise it with <code>perflow budget set --tenant ${b.tenant} --usd-per-day N</code>, or it goes on when the day ends.</p>`
    : html`<p>It has spent <b data-testid="budget-cost">${dollars(b?.cost_usd)}</b> of max_cost_usd ${dollars(b?.max_cost_usd)}.</p>
      <div class="buttons">
        <input data-testid="budget-usd" type="number" min="0" step="any" placeholder="new max_cost_usd in US dollars" value=${usd} onInput=${(e) => setUsd(e.currentTarget.value)} />
        <button class="primary" data-testid="budget-raise" disabled=${busy || !(usd.trim() !== '' && cap > 0)}
          onClick=${() => decide({ kind: 'raise_budget', usd: cap })}>Raise the budget</button>
      </div>`;
  return html`
    <div class="decision budget" data-testid="budget-decision" data-decision-id=${pending.id}>
      <h4>${b?.reason === 'tenant' ? 'The run waits at its tenant’s daily budget' : 'The run waits at its budget'}</h4>
      ${raise}
      <div class="reject">
        <input data-testid="budget-reason" placeholder="why the run ends here" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
        <button class="danger" data-testid="budget-stop" disabled=${busy || !reason.trim()}
          onClick=${() => decide({ kind: 'reject', reason, stop: true })}>End the run with the work so far</button>
      </div>
      ${error && html`<p class="error" data-testid="decision-error">${error}</p>`}
    </div>`;
}

function Controls({ progress, workflowId, onDone }) {
  const [text, setText] = useState('');
  const [confirming, setConfirming] = useState(false);
  const { error, busy, decide } = useDecide(workflowId, onDone);
  const paused = progress.paused || progress.status === 'paused';
  return html`
    <div class="decision controls" data-testid="controls">
      <div class="guide">
        <input data-testid="guide-text" placeholder="guidance for the next planning call" value=${text} onInput=${(e) => setText(e.currentTarget.value)} />
        <button data-testid="guide-send" disabled=${busy || !text.trim()} onClick=${async () => (await decide({ kind: 'guide', text })) && setText('')}>Send guidance</button>
      </div>
      <div class="buttons">
        ${paused
          ? html`<button data-testid="resume" disabled=${busy} onClick=${() => decide({ kind: 'resume' })}>Resume</button>`
          : html`<button data-testid="pause" disabled=${busy} onClick=${() => decide({ kind: 'pause' })}>Pause</button>`}
        ${confirming
          ? html`<button class="danger" data-testid="cancel-confirm" onClick=${() => decide({ kind: 'cancel' }).then(() => setConfirming(false))}>Really cancel the run</button>
              <button onClick=${() => setConfirming(false)}>Keep it</button>`
          : html`<button class="danger" data-testid="cancel" disabled=${busy} onClick=${() => setConfirming(true)}>Cancel run…</button>`}
      </div>
      ${error && html`<p class="error" data-testid="control-error">${error}</p>`}
    </div>`;
}

// A guardrail with on_fail "ask" failed: let the run through, or stop it (it ends tripped).
function GuardrailDecision({ pending, workflowId, onDone }) {
  const [reason, setReason] = useState('');
  const { error, busy, decide } = useDecide(workflowId, onDone);
  const g = pending.guardrail ?? {};
  return html`
    <div class="decision guardrail" data-testid="guardrail-decision" data-decision-id=${pending.id}>
      <h4>The ${g.place} guardrail <code>${g.check}</code> failed</h4>
      <p data-testid="guardrail-detail">${g.detail}</p>
      <div class="buttons">
        <button class="primary" data-testid="guardrail-approve" disabled=${busy} onClick=${() => decide({ kind: 'approve' })}>Let it through</button>
        <input data-testid="guardrail-reason" placeholder="why the run stops" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
        <button class="danger" data-testid="guardrail-reject" disabled=${busy || !reason.trim()} onClick=${() => decide({ kind: 'reject', reason })}>Stop the run</button>
      </div>
      ${error && html`<p class="error">${error}</p>`}
    </div>`;
}

/** The decisions run `workflowId` waits for, each with its form (a sub-agent's too, answered on its own run). */
export function PendingDecisions({ pending, workflowId, onDone }) {
  return (pending ?? []).map((p) =>
    p.kind === 'plan'
      ? html`<${PlanDecision} key=${p.id} pending=${p} workflowId=${workflowId} onDone=${onDone} />`
      : p.kind === 'budget'
        ? html`<${BudgetDecision} key=${p.id} pending=${p} workflowId=${workflowId} onDone=${onDone} />`
        : p.kind === 'guardrail'
          ? html`<${GuardrailDecision} key=${p.id} pending=${p} workflowId=${workflowId} onDone=${onDone} />`
          : p.question !== undefined
            ? html`<${RemoteQuestion} key=${p.id} pending=${p} workflowId=${workflowId} onDone=${onDone} />`
            : html`<${ToolDecision} key=${p.id} pending=${p} workflowId=${workflowId} onDone=${onDone} />`,
  );
}

export function Decisions({ progress, onDone }) {
  const id = progress.workflow_id;
  return html`
    <section class="panel decisions" data-testid="decisions">
      <h3>Decisions</h3>
      <${PendingDecisions} pending=${progress.pending} workflowId=${id} onDone=${onDone} />
      <${Controls} progress=${progress} workflowId=${id} onDone=${onDone} />
    </section>`;
}
