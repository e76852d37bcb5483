// Starts a run of one of the agent files the console offers.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api, parseParams, post } from './api.js';
import { go } from './router.js';

export function StartForm() {
  const [agents, setAgents] = useState([]);
  const [agent, setAgent] = useState('');
  const [question, setQuestion] = useState('');
  const [params, setParams] = useState('');
  const [webhook, setWebhook] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api('/agents')
      .then((list) => {
        setAgents(list);
        if (list.length > 0) setAgent((a) => a || list[0].file);
      })
      .catch((err) => setError(err.message));
  }, []);

  const submit = async (e) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      const parsed = parseParams(params);
      const run = await post('/runs', { agent, question, ...(Object.keys(parsed).length > 0 ? { params: parsed } : {}), ...(webhook.trim() ? { webhook: webhook.trim() } : {}) });
      setQuestion('');
      go('runs', run.workflow_id);
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };

  return html`
    <details class="panel start" open>
      <summary><h2>New run</h2></summary>
      <form onSubmit=${submit} data-testid="start-form">
        <label>Agent
          <select data-testid="start-agent" value=${agent} onChange=${(e) => setAgent(e.currentTarget.value)}>
            ${agents.map((a) => html`<option value=${a.file}>${a.name} (${a.type}) — ${a.file}</option>`)}
          </select>
        </label>
        <label>Question
          <textarea data-testid="start-question" rows="3" required value=${question} onInput=${(e) => setQuestion(e.currentTarget.value)}></textarea>
        </label>
        <label>Parameters <span class="muted">one key=value a line</span>
          <textarea data-testid="start-params" rows="2" class="mono" placeholder="plan_approval=first" value=${params} onInput=${(e) => setParams(e.currentTarget.value)}></textarea>
        </label>
        <label>Webhook <span class="muted">optional: POSTed, signed, when the run ends</span>
          <input type="url" data-testid="start-webhook" class="mono wide" placeholder="https://hooks.example.com/perflow" value=${webhook} onInput=${(e) => setWebhook(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" data-testid="start-submit" disabled=${busy || !agent}>Start</button>
        ${error && html`<p class="error" data-testid="start-error">${error}</p>`}
      </form>
    </details>`;
}
