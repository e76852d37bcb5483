// Online scores of an agent (its file's `scoring`): per version of the agent (fingerprint), how
// many scored runs passed every check, and each check's pass rate. Route #/scores/AGENT
// (#/scores: every agent), re-read every 5 s.
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';

const percent = (rate) => `${(rate * 100).toFixed(1)}%`;

function Version({ group }) {
  return html`
    <tbody data-testid="score-group" data-fingerprint=${group.fingerprint ?? ''}>
      <tr class="score-version" style="border-top: 1px solid #ddd">
        <th style="text-align: left; padding-top: 0.5em">${group.agent} <code title="fingerprint">${group.fingerprint ? group.fingerprint.slice(0, 12) : '(no fingerprint)'}</code></th>
        <td data-testid="score-pass-rate">${percent(group.pass_rate)}</td>
        <td>${group.passed}/${group.runs} runs</td>
      </tr>
      ${group.checks.map(
        (c) => html`
          <tr key=${c.check} data-testid="score-check">
            <td class="check" style="padding-left: 1.5em">${c.check}</td>
            <td>${percent(c.pass_rate)}</td>
            <td>${c.passed}/${c.runs}</td>
          </tr>`,
      )}
    </tbody>`;
}

export function ScoresView({ agent }) {
  const query = agent ? `?agent=${encodeURIComponent(agent)}` : '';
  const { data: groups, error } = usePoll(() => api(`/scores${query}`), 5000, [query]);
  return html`
    <section class="panel scores" data-testid="scores">
      <h2>Online scores${agent ? html` of <b>${agent}</b>` : ''}</h2>
      ${error && html`<p class="error" data-testid="scores-error">${error}</p>`}
      ${groups && groups.length === 0 && html`<p class="muted">No scored runs yet: an agent file's <code>scoring</code> scores a sample of its runs as they end.</p>`}
      ${groups &&
      groups.length > 0 &&
      html`
        <table class="score-table" style="width: 100%; border-collapse: collapse; text-align: left">
          <thead><tr><th>version / check</th><th>pass rate</th><th>runs</th></tr></thead>
          ${groups.map((g) => html`<${Version} key=${`${g.agent}|${g.fingerprint ?? ''}`} group=${g} />`)}
        </table>`}
    </section>`;
}
