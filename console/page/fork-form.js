// Forks a run from one of its steps: the steps before it are reused, the rest runs again, with
// another question or other parameters if given.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { parseParams, post } from './api.js';
import { go } from './router.js';

export function ForkForm({ workflowId, fromStep, question: original, onClose }) {
  const [question, setQuestion] = useState(original);
  const [params, setParams] = useState('');
  const [error, setError] = useState('');
  const submit = async (e) => {
    e.preventDefault();
    setError('');
    try {
      const parsed = parseParams(params);
      const body = { from_step: fromStep, ...(question !== original ? { question } : {}), ...(Object.keys(parsed).length > 0 ? { params: parsed } : {}) };
      const run = await post(`/runs/${encodeURIComponent(workflowId)}/fork`, body);
      onClose();
      go('runs', run.workflow_id);
    } catch (err) {
      setError(err.message);
    }
  };
  return html`
    <form class="fork-form" data-testid="fork-form" onSubmit=${submit}>
      <p class="muted">A new run that reuses steps 1–${fromStep - 1} and runs again from step ${fromStep}.</p>
      <label>Question <textarea data-testid="fork-question" rows="2" value=${question} onInput=${(e) => setQuestion(e.currentTarget.value)}></textarea></label>
      <label>Parameters <span class="muted">key=value a line</span>
        <textarea data-testid="fork-params" rows="2" class="mono" value=${params} onInput=${(e) => setParams(e.currentTarget.value)}></textarea>
      </label>
      <div class="buttons">
        <button type="submit" class="primary" data-testid="fork-submit">Fork from step ${fromStep}</button>
        <button type="button" onClick=${onClose}>Close</button>
      </div>
      ${error && html`<p class="error" data-testid="fork-error">${error}</p>`}
    </form>`;
}
