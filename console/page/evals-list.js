// The evals MongoDB keeps, newest first, re-read every 2 s; two can be ticked to compare case by case.
import { html } from './html.js';
import { api } from './api.js';
import { usePoll } from './poll.js';
import { go, href } from './router.js';
import { passRate, shortTime, tone } from './format.js';
import { PickList } from './pick-list.js';

const link = (e) => html`
  <a href=${href('evals', e.eval_id)}>
    <span class="line">
      <span class=${`badge ${tone(e.status)}`} data-testid="eval-status">${e.status}</span>
      <span class="agent">${e.suite}</span>
      <span class="pass-rate" data-testid="eval-pass-rate">${e.status === 'running' ? '' : passRate(e.passed, e.failed)}</span>
      <span class="time">${shortTime(e.started_at)}</span>
    </span>
    <span class="question">${e.agent}</span>
  </a>`;

export function EvalsList({ selected }) {
  const { data: evals, error } = usePoll(() => api('/evals'), 2000, []);
  return html`
    <section class="panel runs" data-testid="evals">
      <header class="panel-head"><h2>Evals</h2></header>
      <${PickList}
        noun="eval"
        items=${evals}
        error=${error}
        empty=${html`No evals yet: <code>perflow eval SUITE</code> or <code>POST /api/evals</code> starts one.`}
        selected=${selected}
        idOf=${(e) => e.eval_id}
        attrs=${(e) => ({ 'data-eval-id': e.eval_id })}
        link=${link}
        compareTestId="evals-compare"
        onCompare=${(a, b) => go('evals', 'compare', a, b)}
      />
    </section>`;
}
